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
	return w.eachPart(zr, slides, func(i int, b []byte) error {
		first := len(w.blocks)
		if err := w.read(b); err != nil {
			return err
		}
		w.title = false
		if len(w.blocks) == first || !strings.HasPrefix(w.blocks[first], "## ") {
			w.block("") // room for the heading, before what the slide holds
			copy(w.blocks[first+1:], w.blocks[first:])
			w.blocks[first] = "## Slide " + strconv.Itoa(i+1)
			w.size += len(w.blocks[first])
		}
		return nil
	})
}
