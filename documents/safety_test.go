package documents_test

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/scopekit/scopekit/documents"
	"github.com/scopekit/scopekit/internal/docxtest"
	"github.com/stretchr/testify/require"
)

// The hostile templates of a template's safety: paragraphs nested deep,
// a body of whitespace, unsafe zip entry names, DOCTYPEs; and validation
// and rendering stopped by their context. docxtest builds the same files
// for the HTTP tests.

// Ensure validating paragraphs nested deep stays linear: 100,000 levels
// (the 11 KB template that once kept a core busy for minutes) validate in
// seconds, with and without tags at every level.
func TestNestedParagraphs(t *testing.T) {
	for _, tc := range []struct {
		name  string
		tpl   []byte
		depth int
	}{
		{"plain", docxtest.NestedParagraphs(100_000, ""), 100_000},
		{"tags", docxtest.NestedParagraphs(50_000, "{#tags}{project.name}{/tags}"), 50_000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			_, err := documents.Tags(t.Context(), tc.tpl)
			require.NoError(t, err)
			if tc.name == "tags" {
				out, err := documents.Render(t.Context(), tc.tpl, data())
				require.NoError(t, err)
				require.Equal(t, tc.depth*2, strings.Count(string(entry(t, out, "word/document.xml")), "Globex"))
			}
			t.Logf("%d KiB template, %d levels: %v", len(tc.tpl)>>10, tc.depth, time.Since(start))
			if !raceEnabled {
				require.Less(t, time.Since(start), 20*time.Second)
			}
		})
	}
}

// BenchmarkNestedParagraphs validates (Tags, as an upload does) templates
// of paragraphs nested 1,000 to 400,000 deep: time per level stays flat.
// At 400,000 levels the body holds more than the 400,000 XML nodes a part
// may have: it is refused (422) once they are counted. "tags" puts a loop
// and a value at every level (4 nodes each, so at most 100,000 levels).
func BenchmarkNestedParagraphs(b *testing.B) {
	for _, bc := range []struct {
		name   string
		level  string
		depths []int
	}{
		{"plain", "", []int{1_000, 10_000, 100_000, 200_000, 400_000}},
		{"tags", "{#tags}{project.name}{/tags}", []int{1_000, 10_000, 40_000, 79_000}},
	} {
		for _, depth := range bc.depths {
			tpl := docxtest.NestedParagraphs(depth, bc.level)
			b.Run(fmt.Sprintf("%s/depth=%d", bc.name, depth), func(b *testing.B) {
				for b.Loop() {
					_, err := documents.Tags(b.Context(), tpl)
					if err != nil && !strings.Contains(err.Error(), "too complex") {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(depth), "ns/level")
			})
		}
	}
}

// Ensure Tags and Render stop soon after their context ends, at each
// stage: unpacking, parsing, rendering.
func TestCanceled(t *testing.T) {
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	small := template(t, p("{project.name}"))
	_, err := documents.Tags(canceled, small)
	require.ErrorIs(t, err, context.Canceled)
	_, err = documents.Render(canceled, small, data())
	require.ErrorIs(t, err, context.Canceled)

	// Mid-parse and mid-render: a deadline that passes while the work runs.
	deep := docxtest.NestedParagraphs(79_000, "{#tags}{project.name}{/tags}")
	items := make([]any, 400)
	for i := range items {
		items[i] = map[string]any{"n": strings.Repeat("x", 20)}
	}
	long := template(t, p("{#l}{#l}{#l}{n}{/l}{/l}{/l}"))
	for _, tc := range []struct {
		name string
		call func(ctx context.Context) error
	}{
		{"Tags", func(ctx context.Context) error { _, err := documents.Tags(ctx, deep); return err }},
		{"Render", func(ctx context.Context) error {
			_, err := documents.Render(ctx, long, map[string]any{"l": items})
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
			defer cancel()
			start := time.Now()
			err := tc.call(ctx)
			require.ErrorIs(t, err, context.DeadlineExceeded)
			require.Less(t, time.Since(start), 2*time.Second, "stopped late")
		})
	}
}

// Ensure templates are unpacked within the process's budget: while the
// budget is spent, validating and rendering wait, and stop with their
// context; once it is returned they proceed. A failed validation returns
// what it reserved (the budget is whole again after it).
func TestUnpackBudget(t *testing.T) {
	small := template(t, p("{project.name}"))
	release := documents.HoldUnpackBudget()
	for name, call := range map[string]func(ctx context.Context) error{
		"Tags":   func(ctx context.Context) error { _, err := documents.Tags(ctx, small); return err },
		"Render": func(ctx context.Context) error { _, err := documents.Render(ctx, small, data()); return err },
	} {
		ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
		err := call(ctx)
		cancel()
		require.ErrorIs(t, err, context.DeadlineExceeded, name)
	}
	done := make(chan error, 1)
	go func() { _, err := documents.Tags(context.Background(), small); done <- err }()
	select {
	case err := <-done:
		t.Fatalf("validated beyond the budget: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	release()
	require.NoError(t, <-done)

	_, err := documents.Tags(t.Context(), template(t, p("{#open}")))
	require.Error(t, err)
	documents.HoldUnpackBudget()() // the whole budget is free again
}

// Ensure zip entries whose names are absolute, hold a .. segment or a
// backslash are refused (they would be copied into every generated file),
// naming the entry.
func TestUnsafeEntryNames(t *testing.T) {
	for _, name := range []string{"../../x", "/tmp/x", `word\..\x`, "word/../../x", "C:/x", "word//x", "./x",
		"word/media/a\x00b.png", "word/media/a\nb.png", "word/\x7f.xml"} {
		t.Run(name, func(t *testing.T) {
			tpl := docx(t, "word/document.xml", documentXML(p("{project.name}")), name, "x")
			_, err := documents.Tags(t.Context(), tpl)
			requireInvalid(t, err, fmt.Sprintf("the template's zip entry %q has an unsafe name", name))
			_, err = documents.Render(t.Context(), tpl, data())
			requireInvalid(t, err, fmt.Sprintf("zip entry %q", name))
		})
	}
	// Directory entries and ordinary names are fine.
	tpl := docx(t, "word/document.xml", documentXML(p("x")), "word/media/", "", "customXml/item1.xml", "<a/>")
	_, err := documents.Tags(t.Context(), tpl)
	require.NoError(t, err)
}

// Ensure a zip entry that is a symbolic link (or another special file,
// by the mode in its external attributes) is refused, naming it: only
// files and folders are copied into the generated files.
func TestSpecialEntries(t *testing.T) {
	for _, tc := range []struct {
		mode fs.FileMode
		kind string
	}{
		{fs.ModeSymlink | 0o777, "symbolic link"},
		{fs.ModeNamedPipe | 0o644, "named pipe"},
		{fs.ModeDevice | 0o644, "device"},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			var buf bytes.Buffer
			zw := zip.NewWriter(&buf)
			for _, e := range []struct {
				name, body string
				mode       fs.FileMode
			}{{"word/document.xml", documentXML(p("{project.name}")), 0o644}, {"word/media/link.png", "/etc/passwd", tc.mode}} {
				h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
				h.SetMode(e.mode)
				w, err := zw.CreateHeader(h)
				require.NoError(t, err)
				_, err = io.WriteString(w, e.body)
				require.NoError(t, err)
			}
			require.NoError(t, zw.Close())
			want := fmt.Sprintf("the template's zip entry \"word/media/link.png\" is a %s; a template holds only files and folders", tc.kind)
			_, err := documents.Tags(t.Context(), buf.Bytes())
			requireInvalid(t, err, want)
			_, err = documents.Render(t.Context(), buf.Bytes(), data())
			requireInvalid(t, err, want)
		})
	}
}

// Ensure a DOCTYPE in any XML part is refused, whatever its case or
// encoding, while one inside an image (an SVG) is the image's business.
func TestDoctype(t *testing.T) {
	bomb := `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;">]><cp:coreProperties>&lol2;</cp:coreProperties>`
	utf16 := func(s string) string {
		var b strings.Builder
		b.WriteString("\xff\xfe")
		for _, c := range []byte(s) {
			b.WriteByte(c)
			b.WriteByte(0)
		}
		return b.String()
	}
	for _, tc := range []struct {
		name    string
		entries []string
		part    string
	}{
		{"core properties", []string{"docProps/core.xml", bomb}, "docProps/core.xml"},
		{"body", []string{"word/document.xml", `<?xml version="1.0"?><!DOCTYPE w:document>` + documentXML(p("x"))[strings.Index(documentXML(""), "<w:document"):]}, "word/document.xml"},
		{"lower case", []string{"word/styles.xml", `<!doctype x><x/>`}, "word/styles.xml"},
		{"relationships", []string{"word/_rels/document.xml.rels", `<!DOCTYPE r [<!ENTITY e SYSTEM "file:///etc/passwd">]><r>&e;</r>`}, "word/_rels/document.xml.rels"},
		{"UTF-16", []string{"docProps/app.xml", utf16(bomb)}, "docProps/app.xml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			entries := append([]string{"word/document.xml", documentXML(p("{project.name}"))}, tc.entries...)
			tpl := docx(t, entries...)
			_, err := documents.Tags(t.Context(), tpl)
			requireInvalid(t, err, "the template's "+tc.part+" has a DOCTYPE declaration")
			_, err = documents.Render(t.Context(), tpl, data())
			requireInvalid(t, err, "DOCTYPE")
		})
	}
	svg := `<?xml version="1.0"?><!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd"><svg/>`
	_, err := documents.Tags(t.Context(), docx(t, "word/document.xml", documentXML(p("x")), "word/media/image1.svg", svg))
	require.NoError(t, err)
}

// The whitespace templates: 60 MiB of spaces in document.xml (under the
// 64 MiB limit of an entry), between the body's elements, inside a
// paragraph without tags, and inside the text of a paragraph with one.
var whitespaceCases = []string{"body", "paragraph", "tagged"}

// memoryChildEnv makes the test binary measure one validation or
// rendering in a process of its own (see TestWhitespaceMemory).
const memoryChildEnv = "SCOPEKIT_DOCUMENTS_MEMORY_CHILD"

// Ensure 60 MiB of whitespace in document.xml is validated and rendered
// in bounded memory: the peak resident size (VmHWM of /proc/self/status)
// of a process doing one validation stays under 300 MB, eight at once
// under 1 GB, one rendering under 300 MB. Each measure runs in a process
// of its own (this test binary, run again), so nothing else counts.
func TestWhitespaceMemory(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc/self/status")
	}
	if testing.Short() || raceEnabled {
		t.Skip("measures memory: not with -short or -race")
	}
	dir := t.TempDir()
	for _, where := range whitespaceCases {
		file := filepath.Join(dir, where+".docx")
		require.NoError(t, os.WriteFile(file, docxtest.Whitespace(60<<20, where), 0o600))
		for _, tc := range []struct {
			op    string
			n     int
			limit int // MB
		}{{"tags", 1, 300}, {"tags", 8, 1000}, {"render", 1, 300}} {
			t.Run(fmt.Sprintf("%s/%s×%d", where, tc.op, tc.n), func(t *testing.T) {
				cmd := exec.Command(os.Args[0], "-test.run=^TestMemoryChild$", "-test.v")
				cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s:%s:%d", memoryChildEnv, file, tc.op, tc.n))
				out, err := cmd.CombinedOutput()
				require.NoError(t, err, "%s", out)
				m := regexp.MustCompile(`peak-rss-kb=(\d+) heap-sys-mb=(\d+) took=(\S+)`).FindSubmatch(out)
				require.NotNil(t, m, "%s", out)
				kb, _ := strconv.Atoi(string(m[1]))
				t.Logf("60 MiB of whitespace (%s), %s ×%d: peak RSS %d MB, heap %s MB, %s", where, tc.op, tc.n, kb/1000, m[2], m[3])
				require.Less(t, kb/1000, tc.limit, "peak RSS over %d MB", tc.limit)
			})
		}
	}
}

// TestMemoryChild is TestWhitespaceMemory's measuring process.
func TestMemoryChild(t *testing.T) {
	spec := os.Getenv(memoryChildEnv)
	if spec == "" {
		t.Skip("run by TestWhitespaceMemory")
	}
	parts := strings.Split(spec, ":")
	tpl, err := os.ReadFile(parts[0])
	require.NoError(t, err)
	n, _ := strconv.Atoi(parts[2])
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Go(func() {
			var err error
			if parts[1] == "render" {
				_, err = documents.Render(context.Background(), tpl, data())
			} else {
				_, err = documents.Tags(context.Background(), tpl)
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	took := time.Since(start)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	status, err := os.ReadFile("/proc/self/status")
	require.NoError(t, err)
	m := regexp.MustCompile(`VmHWM:\s+(\d+) kB`).FindSubmatch(status)
	require.NotNil(t, m)
	fmt.Printf("peak-rss-kb=%s heap-sys-mb=%d took=%s\n", m[1], ms.HeapSys>>20, took.Round(time.Millisecond))
}
