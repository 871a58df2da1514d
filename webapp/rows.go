package webapp

import (
	"html"
	"html/template"
	"net/url"
	"strings"
)

// The scope's service rows are written here rather than by html/template:
// a project of a hundred services has some ten thousand values in its
// rows, and html/template's escaping, by reflection for each, took most
// of the page's time (32 ms of 38). Every value is escaped by hand below:
// text and attribute values with html.EscapeString, the account's slug
// in paths with url.PathEscape first; ids are decimal and the CSRF token
// base64url.

// rowWriter writes the rows of one page.
type rowWriter struct {
	strings.Builder
	edit bool
	base string // /app/{slug}/projects/{id}/lines/, escaped
	csrf string
}

func (pg *projectPage) rowWriter() *rowWriter {
	return &rowWriter{edit: pg.CanEdit, csrf: html.EscapeString(pg.L.CSRF),
		base: html.EscapeString("/app/" + url.PathEscape(pg.L.Slug) + "/projects/" + url.PathEscape(pg.H.ID) + "/lines/")}
}

// Row returns the rows of a service and its subservices, a <tbody>; oob
// marks it for an out-of-band swap (the answer to an edit).
func (pg *projectPage) Row(l *lineRow, oob bool) template.HTML {
	w := pg.rowWriter()
	w.Grow(4096 + 3072*len(l.Subs)) // about what a row takes: one allocation
	w.service(l, oob)
	return template.HTML(w.String()) // every value is escaped as it is written
}

func (w *rowWriter) s(parts ...string) {
	for _, p := range parts {
		w.WriteString(p)
	}
}

// hiddenCSRF is the token field of a row's plain forms.
func (w *rowWriter) hiddenCSRF() { w.s(`<input type="hidden" name="csrf" value="`, w.csrf, `">`) }

// number writes a labelled number input of the row's form.
func (w *rowWriter) number(kind, prefix, id, name, label, value, what string) {
	w.s(`<td class="num" data-label="`, label, `"><label class="visually-hidden" for="`, prefix, kind, id, `">`, what, ` of `, name,
		`</label><input id="`, prefix, kind, id, `" name="`, map[string]string{"q-": "quantity", "h-": "unit-hours"}[prefix],
		`" type="number" step="any" min="0" value="`, html.EscapeString(value), `" form="f-`, kind, id, `"></td>`, "\n")
}

// choice writes a labelled select of the row's form.
func (w *rowWriter) choice(kind, prefix, id, field, what, name string, opts template.HTML) {
	w.s(`<label class="visually-hidden" for="`, prefix, kind, id, `">`, what, ` of `, name, `</label><select id="`, prefix, kind, id,
		`" name="`, field, `" form="f-`, kind, id, `">`, string(opts), `</select>`)
}

// figures writes the line's hours and revenue.
func (w *rowWriter) figures(typ, id, hoursFigure string, l *lineRow) {
	w.s(`<td class="num" data-label="Hours" data-line="`, typ, `/`, id, `" data-line-figure="`, hoursFigure, `">`, l.TotalHours, "</td>\n",
		`<td class="num" data-label="Revenue" data-line="`, typ, `/`, id, `" data-line-figure="revenue">`, l.Revenue, "</td>\n")
}

// action writes a small form posting to a path of the line, swapping the
// scope when script runs (after asking confirm, when not "").
func (w *rowWriter) action(path, extra, button, confirm string) {
	w.s(`<form method="post" action="`, w.base, path, `" class="inline" hx-post="`, w.base, path, `" hx-target="#scope" hx-swap="outerHTML"`)
	if confirm != "" {
		w.s(` hx-confirm="`, confirm, `"`)
	}
	w.s(`>`)
	w.hiddenCSRF()
	w.s(extra, button, `</form>`, "\n")
}

func (w *rowWriter) service(l *lineRow, oob bool) {
	id, name := l.ID, html.EscapeString(l.Name)
	w.s(`<tbody id="line-svc-`, id, `" class="line"`)
	if w.edit {
		w.s(` hx-swap="none"`)
	}
	if oob {
		w.s(` hx-swap-oob="true"`)
	}
	w.s(">\n<tr")
	if w.edit {
		w.s(` hx-post="`, w.base, `services/`, id, `" hx-trigger="change" hx-include="this" hx-params="quantity,unit-hours,project-phase,project-resource,project-location"`)
	}
	w.s(">\n", `<td class="name">`, name)
	if l.SKU != "" {
		w.s(`<small>`, html.EscapeString(l.SKU), `</small>`)
	}
	w.s("</td>\n")
	if w.edit {
		w.number("svc-", "q-", id, name, "Qty", l.Quantity, "Quantity")
		w.number("svc-", "h-", id, name, "Unit hours", l.UnitHours, "Unit hours")
		w.s(`<td><div class="where">`)
		w.choice("svc-", "ph-", id, "project-phase", "Phase", name, l.PhaseOpts)
		w.s("\n")
		w.choice("svc-", "rs-", id, "project-resource", "Resource", name, l.ResourceOpts)
		w.s("\n")
		w.choice("svc-", "lc-", id, "project-location", "Location", name, l.LocationOpts)
		w.s("</div></td>\n")
	} else {
		w.s(`<td class="num">`, html.EscapeString(l.Quantity), `</td><td class="num">`, html.EscapeString(l.UnitHours), `</td><td>`,
			html.EscapeString(l.PhaseName), ` · `, html.EscapeString(l.ResourceName), "</td>\n")
	}
	w.figures("project-services", id, "total-hours", l)
	if w.edit {
		w.s(`<td><div class="row-actions">`, "\n", `<form id="f-svc-`, id, `" method="post" action="`, w.base, `services/`, id, `" class="inline save">`)
		w.hiddenCSRF()
		w.s(`<button type="submit" class="small secondary" title="Save the changes of this row">Save</button></form>`, "\n")
		for _, mv := range []struct {
			dir, arrow string
			off        bool
		}{{"up", "↑", l.First}, {"down", "↓", l.Last}} {
			disabled := ""
			if mv.off {
				disabled = " disabled"
			}
			w.action("services/"+id+"/move", `<input type="hidden" name="direction" value="`+mv.dir+`">`,
				`<button type="submit" class="small secondary"`+disabled+` aria-label="Move `+name+` `+mv.dir+`">`+mv.arrow+`</button>`, "")
		}
		w.action("services/"+id+"/remove", "", `<button type="submit" class="small danger" aria-label="Remove `+name+`">Remove</button>`,
			"Remove "+name+" from the scope?")
		w.s("</div></td>")
	}
	w.s("\n</tr>\n")
	for _, sub := range l.Subs {
		w.subservice(sub)
	}
	w.s("</tbody>")
}

func (w *rowWriter) subservice(l *lineRow) {
	id, name := l.ID, html.EscapeString(l.Name)
	w.s(`<tr class="sub-line" id="line-sub-`, id, `"`)
	if w.edit {
		w.s(` hx-post="`, w.base, `subservices/`, id, `" hx-trigger="change" hx-include="this" hx-params="quantity,unit-hours,project-resource"`)
	}
	w.s(">\n", `<td class="name">`, name, "</td>\n")
	if w.edit {
		w.number("sub-", "q-", id, name, "Qty", l.Quantity, "Quantity")
		w.number("sub-", "h-", id, name, "Unit hours", l.UnitHours, "Unit hours")
		w.s(`<td><div class="where">`)
		w.choice("sub-", "rs-", id, "project-resource", "Resource", name, l.ResourceOpts)
		w.s("</div></td>\n")
	} else {
		w.s(`<td class="num">`, html.EscapeString(l.Quantity), `</td><td class="num">`, html.EscapeString(l.UnitHours), `</td><td>`,
			html.EscapeString(l.ResourceName), "</td>\n")
	}
	w.figures("project-subservices", id, "extended-hours", l)
	if w.edit {
		w.s(`<td><div class="row-actions">`, "\n", `<form id="f-sub-`, id, `" method="post" action="`, w.base, `subservices/`, id, `" class="inline save">`)
		w.hiddenCSRF()
		w.s(`<button type="submit" class="small secondary" title="Save the changes of this row">Save</button></form>`, "\n")
		w.action("subservices/"+id+"/remove", "", `<button type="submit" class="small danger" aria-label="Remove `+name+`">Remove</button>`, "")
		w.s("</div></td>")
	}
	w.s("\n</tr>\n")
}
