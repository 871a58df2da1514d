package documents_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/scopekit/scopekit/documents"
	"github.com/stretchr/testify/require"
)

// Ensure a + of many operands joins as the pairs from the left did: for
// every sequence of four values of each kind (missing, text, empty text,
// number, numeric text, boolean, list, object), {a+b+c+d} shows what
// {((a+b)+c)+d} shows.
func TestJoinAsPairs(t *testing.T) {
	vals := []string{"missing", "s", "empty", "n", "ns", "b", "l", "m"}
	data := map[string]any{"s": "x", "empty": "", "n": 2, "ns": "1.5", "b": true, "l": []any{1}, "m": map[string]any{"k": 1}}
	var paras []string
	var want int
	for _, a := range vals {
		for _, b := range vals {
			for _, c := range vals {
				for _, d := range vals {
					paras = append(paras, p("{"+a+"+"+b+"+"+c+"+"+d+"}|{(("+a+"+"+b+")+"+c+")+"+d+"}"))
					want++
				}
			}
		}
	}
	out, err := documents.Render(context.Background(), template(t, paras...), data)
	require.NoError(t, err)
	got := paragraphs(entry(t, out, "word/document.xml"))
	require.Len(t, got, want)
	differ := 0
	for i, para := range got {
		joined, pairs, _ := strings.Cut(para, "|")
		if joined != pairs {
			differ++
			t.Errorf("%s: %q, pairs %q", paras[i], joined, pairs)
		}
	}
	require.Zero(t, differ)

	// what + has always done: numbers add, a missing side gives the other,
	// anything else joins as text (merge data's figures are texts)
	want2 := map[string]string{"n+n": "4", "n+n+s": "4x", "n+missing+n": "4", "s+n+n": "x22", "ns+n": "1.52",
		"missing+n": "2", "l+n": "2", "b+missing": "true", "missing+missing": "", "empty+n+n": "22", "m+s": "x"}
	var tags []string
	for tag := range want2 {
		tags = append(tags, p(tag+"={"+tag+"}"))
	}
	out, err = documents.Render(context.Background(), template(t, tags...), data)
	require.NoError(t, err)
	for _, para := range paragraphs(entry(t, out, "word/document.xml")) {
		tag, val, _ := strings.Cut(para, "=")
		require.Equal(t, want2[tag], val, tag)
	}
}

// Ensure a tag of more than 1,000 values joined with + is refused at
// upload naming it, in a few milliseconds (a 6.5 KB template of 100,000
// kept a document worker 36 s), and one of 1,000 renders.
func TestJoinBounded(t *testing.T) {
	ctx := context.Background()
	start := time.Now()
	_, err := documents.Tags(ctx, concatTemplate(t, 100_000))
	requireInvalid(t, err, "bad tag {project.name+project.name+project.name+project.name+project… in paragraph 1: "+
		"more than 1000 values joined with +")
	_, err = documents.Render(ctx, concatTemplate(t, 1001), data())
	requireInvalid(t, err, "more than 1000 values joined with +")
	require.Less(t, time.Since(start), 5*time.Second)

	out, err := documents.Render(ctx, concatTemplate(t, 1000), data())
	require.NoError(t, err)
	require.Equal(t, []string{strings.Repeat("Globex", 1000)}, paragraphs(entry(t, out, "word/document.xml")))
}

// Ensure a + whose text passes 1 MiB fails the rendering naming its tag
// (1,000 values of 2 KB would make 2 MB); under it the text is whole.
func TestJoinTooLong(t *testing.T) {
	long := strings.Repeat("y", 2000)
	tag := "{" + strings.TrimSuffix(strings.Repeat("long+", 1000), "+") + "}"
	_, err := documents.Render(context.Background(), template(t, p("x"), p(tag)), map[string]any{"long": long})
	requireInvalid(t, err, "the text that {long+long+long+long+long+long+long+long+long+long+long+long… in paragraph 2 "+
		"joins with + would be longer than 1 MiB")
	out, err := documents.Render(context.Background(), template(t, p(tag)), map[string]any{"long": long[:1000]})
	require.NoError(t, err)
	require.Len(t, paragraphs(entry(t, out, "word/document.xml"))[0], 1_000_000)
}
