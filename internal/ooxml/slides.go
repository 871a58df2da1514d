package ooxml

import (
	"archive/zip"
	"strconv"
	"strings"
)

// pptx reads the slides of a presentation in its order, each under its
// title or "Slide n".
func (w *mdWriter) pptx(zr *zip.Reader) error {
	slides, _, err := partsInOrder(zr, MainPart[PPTX], "sldId")
	if err != nil {
		return err
	}
	w.ns = dml
	for i, part := range slides {
		if w.full() {
			w.cut = true
			return nil
		}
		b, err := zipPart(zr, part)
		if err != nil {
			return err
		}
		first := len(w.blocks)
		if err := w.read(b); err != nil {
			return err
		}
		w.title = false
		if len(w.blocks) == first || !strings.HasPrefix(w.blocks[first], "## ") {
			w.blocks = append(w.blocks[:first], append([]string{"## Slide " + strconv.Itoa(i+1)}, w.blocks[first:]...)...)
		}
	}
	return nil
}
