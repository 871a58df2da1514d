package documents_test

import (
	"testing"

	"github.com/scopekit/scopekit/documents"
	"github.com/stretchr/testify/require"
)

// Ensure money and dates follow CLDR in 20 locales and more: the
// currency pattern of the locale (where the symbol goes, the space, the
// sign), the currency's symbol there, its grouping (1,23,45,678 in hi;
// none below 10,000 where the minimum grouping digits are 2: es, pl, it),
// its digits (those a tag chooses too), the minus sign; the long date pattern and the month and
// day names (in the form dates use: listopada, ноября). The CLDR pattern
// of each is in the comment.
func TestCLDRLocales(t *testing.T) {
	tags := []string{"{value | money}", "{neg | money}", "{small | money}", "{lakh | money}", "{when | date}",
		`{when | date:"Monday 2 January 2006 (Mon, Jan)"}`}
	for _, tc := range []struct {
		locale, code string
		minor        int
		want         []string
	}{
		// #,##0.00 ¤ (min. grouping 2); d MMMM y
		{"it-IT", "EUR", 2, []string{"10.794,25\u00a0€", "-250,00\u00a0€", "1234,50\u00a0€", "1.234.567,50\u00a0€", "22 novembre 2026", "domenica 22 novembre 2026 (dom, nov)"}},
		// #,##0.00 ¤, group U+00A0 (min. grouping 2); d MMMM y
		{"pl", "PLN", 2, []string{"10\u00a0794,25\u00a0zł", "-250,00\u00a0zł", "1234,50\u00a0zł", "1\u00a0234\u00a0567,50\u00a0zł", "22 listopada 2026", "niedziela 22 listopada 2026 (niedz., lis)"}},
		// ¤ #,##0.00;¤ -#,##0.00; d MMMM y
		{"nl-NL", "EUR", 2, []string{"€\u00a010.794,25", "€\u00a0-250,00", "€\u00a01.234,50", "€\u00a01.234.567,50", "22 november 2026", "zondag 22 november 2026 (zo, nov.)"}},
		// ¤ #,##0.00; d 'de' MMMM 'de' y
		{"pt-BR", "BRL", 2, []string{"R$\u00a010.794,25", "-R$\u00a0250,00", "R$\u00a01.234,50", "R$\u00a01.234.567,50", "22 de novembro de 2026", "domingo 22 novembro 2026 (dom., nov.)"}},
		// ¤ #,##0.00;¤-#,##0.00, group '; d. MMMM y
		{"de-CH", "CHF", 2, []string{"CHF\u00a010'794.25", "CHF-250.00", "CHF\u00a01'234.50", "CHF\u00a01'234'567.50", "22. November 2026", "Sonntag 22 November 2026 (So., Nov.)"}},
		// #,##0.00 ¤, group U+202F; d MMMM y
		{"fr-FR", "EUR", 2, []string{"10\u202f794,25\u00a0€", "-250,00\u00a0€", "1\u202f234,50\u00a0€", "1\u202f234\u202f567,50\u00a0€", "22 novembre 2026", "dimanche 22 novembre 2026 (dim., nov.)"}},
		// ¤#,##0 (JPY has no minor units), symbol ￥; y年M月d日
		{"ja", "JPY", 0, []string{"￥10,794", "-￥250", "￥1,235", "￥1,234,568", "2026年11月22日", "日曜日 22 11月 2026 (日, 11月)"}},
		// ‏#,##0.00 ¤ in Arabic-Indic digits, minus ؜-; d MMMM y
		{"ar-EG", "EGP", 2, []string{"\u200f١٠٬٧٩٤٫٢٥\u00a0ج.م.\u200f", "\u061c-\u200f٢٥٠٫٠٠\u00a0ج.م.\u200f", "\u200f١٬٢٣٤٫٥٠\u00a0ج.م.\u200f",
			"\u200f١٬٢٣٤٬٥٦٧٫٥٠\u00a0ج.م.\u200f", "٢٢ نوفمبر ٢٠٢٦", "الأحد ٢٢ نوفمبر ٢٠٢٦ (الأحد, نوفمبر)"}},
		// ¤#,##,##0.00 (groups of 3, then 2); d MMMM y
		{"hi", "INR", 2, []string{"₹10,794.25", "-₹250.00", "₹1,234.50", "₹12,34,567.50", "22 नवंबर 2026", "रविवार 22 नवंबर 2026 (रवि, नव॰)"}},
		// ¤#,##0.00 (mr groups money by 3, other numbers as hi), in Devanagari digits; d MMMM, y
		{"mr", "INR", 2, []string{"₹१०,७९४.२५", "-₹२५०.००", "₹१,२३४.५०", "₹१,२३४,५६७.५०", "२२ नोव्हेंबर, २०२६", "रविवार २२ नोव्हेंबर २०२६ (रवि, नोव्हें)"}},
		// ¤#,##0.00; MMMM d, y
		{"en-US", "USD", 2, []string{"$10,794.25", "-$250.00", "$1,234.50", "$1,234,567.50", "November 22, 2026", "Sunday 22 November 2026 (Sun, Nov)"}},
		// ¤#,##0.00 (en-GB's long date is its language's, as the calendars are)
		{"en-GB", "GBP", 2, []string{"£10,794.25", "-£250.00", "£1,234.50", "£1,234,567.50", "November 22, 2026", "Sunday 22 November 2026 (Sun, Nov)"}},
		// #,##0.00 ¤ (min. grouping 2); d 'de' MMMM 'de' y
		{"es-ES", "EUR", 2, []string{"10.794,25\u00a0€", "-250,00\u00a0€", "1234,50\u00a0€", "1.234.567,50\u00a0€", "22 de noviembre de 2026", "domingo 22 noviembre 2026 (dom., nov.)"}},
		// #,##0.00 ¤; d. MMMM y
		{"de-DE", "EUR", 2, []string{"10.794,25\u00a0€", "-250,00\u00a0€", "1.234,50\u00a0€", "1.234.567,50\u00a0€", "22. November 2026", "Sonntag 22 November 2026 (So., Nov.)"}},
		// #,##0.00 ¤, group U+00A0, minus U+2212; d MMMM y
		{"sv-SE", "SEK", 2, []string{"10\u00a0794,25\u00a0kr", "\u2212250,00\u00a0kr", "1\u00a0234,50\u00a0kr", "1\u00a0234\u00a0567,50\u00a0kr", "22 november 2026", "söndag 22 november 2026 (sön, nov.)"}},
		// ¤#,##0.00; y年M月d日
		{"zh-CN", "CNY", 2, []string{"¥10,794.25", "-¥250.00", "¥1,234.50", "¥1,234,567.50", "2026年11月22日", "星期日 22 十一月 2026 (周日, 11月)"}},
		// ¤#,##0 (KRW has no minor units); y년 M월 d일
		{"ko-KR", "KRW", 0, []string{"₩10,794", "-₩250", "₩1,235", "₩1,234,568", "2026년 11월 22일", "일요일 22 11월 2026 (일, 11월)"}},
		// #,##0.00 ¤, group U+00A0; d MMMM y 'г'.
		{"ru-RU", "RUB", 2, []string{"10\u00a0794,25\u00a0₽", "-250,00\u00a0₽", "1\u00a0234,50\u00a0₽", "1\u00a0234\u00a0567,50\u00a0₽", "22 ноября 2026 г.", "воскресенье 22 ноября 2026 (вс, нояб.)"}},
		// ¤#,##0.00; d MMMM y
		{"tr-TR", "TRY", 2, []string{"₺10.794,25", "-₺250,00", "₺1.234,50", "₺1.234.567,50", "22 Kasım 2026", "Pazar 22 Kasım 2026 (Paz, Kas)"}},
		// #,##0.00 ¤; d. MMMM y
		{"da-DK", "DKK", 2, []string{"10.794,25\u00a0kr.", "-250,00\u00a0kr.", "1.234,50\u00a0kr.", "1.234.567,50\u00a0kr.", "22. november 2026", "søndag 22 november 2026 (søn., nov.)"}},
		// #,##0.00 ¤, minus U+2212; d. MMMM y
		{"fi-FI", "EUR", 2, []string{"10\u00a0794,25\u00a0€", "\u2212250,00\u00a0€", "1\u00a0234,50\u00a0€", "1\u00a0234\u00a0567,50\u00a0€", "22. marraskuuta 2026", "sunnuntaina 22 marraskuuta 2026 (su, marrask.)"}},
		// ¤#,##0.00, in Traditional Chinese (zh-TW is written in Hant); y年M月d日
		{"zh-TW", "TWD", 2, []string{"NT$10,794.25", "-NT$250.00", "NT$1,234.50", "NT$1,234,567.50", "2026年11月22日", "星期日 22 11月 2026 (週日, 11月)"}},
		// the digits a tag chooses win: mr and ar-EG in Latin digits
		{"mr-u-nu-latn", "INR", 2, []string{"₹10,794.25", "-₹250.00", "₹1,234.50", "₹1,234,567.50", "22 नोव्हेंबर, 2026", "रविवार 22 नोव्हेंबर 2026 (रवि, नोव्हें)"}},
		{"ar-EG-u-nu-latn", "EGP", 2, []string{"\u200f10,794.25\u00a0ج.م.\u200f", "\u061c-\u200f250.00\u00a0ج.م.\u200f", "\u200f1,234.50\u00a0ج.م.\u200f",
			"\u200f1,234,567.50\u00a0ج.م.\u200f", "22 نوفمبر 2026", "الأحد 22 نوفمبر 2026 (الأحد, نوفمبر)"}},
	} {
		t.Run(tc.locale, func(t *testing.T) {
			d := moneyData(tc.code, tc.minor, tc.locale)
			d["small"], d["lakh"] = "1234.5", "1234567.5"
			require.Equal(t, tc.want, renderText(t, d, tags...))
		})
	}
}

// Ensure the date filter renders in every locale it has a calendar of,
// those whose CLDR tables lack names (vai-Vaii) in English, and never
// panics.
func TestCalendars(t *testing.T) {
	keys := documents.CalendarKeys()
	require.Greater(t, len(keys), 200)
	for _, k := range keys {
		got := renderText(t, map[string]any{"locale": k, "when": "2026-11-22"}, "{when | date}", `{when | date:"Mon Jan 2"}`)
		require.Len(t, got, 2, k)
		require.NotEmpty(t, got[0], k)
	}
	require.Equal(t, []string{"November 22, 2026"}, renderText(t, map[string]any{"locale": "vai-Vaii", "when": "2026-11-22"}, "{when | date}"))
}

// Ensure only what Go reads as a month or day name is replaced: Month,
// Janet and the PM of a time stay as written.
func TestDateLayoutNames(t *testing.T) {
	got := renderText(t, map[string]any{"locale": "de-DE", "when": "2026-11-22T15:04:05Z"},
		`{when | date:"Month: January (Jan), Janet, Monday/Mon, 3 PM MST"}`)
	require.Equal(t, []string{"Month: November (Nov.), Janet, Sonntag/So., 3 PM UTC"}, got)
}
