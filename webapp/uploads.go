package webapp

import (
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"

	"github.com/scopekit/scopekit"
)

// Forms with a file (a template, a catalog to import): sent as
// multipart/form-data, read part by part into memory within bounds
// (no temporary files), the CSRF token checked as for any change.

// maxUploadBytes bounds a file form: the largest file a use case takes
// (a template, 20 MiB) and the form's fields.
const maxUploadBytes = 20<<20 + maxFormBytes

// upload wraps a POST handler of a file form.
func (w *Workspace) upload(h func(c *call) error) http.HandlerFunc {
	return func(rw http.ResponseWriter, r *http.Request) {
		c, ok := w.begin(rw, r)
		if !ok {
			return
		}
		err := c.readUpload()
		if err == nil {
			err = c.checkCSRF()
		}
		if err == nil {
			err = h(c)
		}
		if err != nil {
			w.fail(c, err)
		}
	}
}

// readUpload reads a multipart form: its fields into c.form and its one
// part named "file" into c.file.
func (c *call) readUpload() error {
	mt, params, err := mime.ParseMediaType(c.r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return scopekit.Errorf(scopekit.EUNSUPPORTEDMEDIA, "A form with a file must be sent as multipart/form-data.")
	}
	tooLarge := scopekit.Errorf(scopekit.ETOOLARGE, "The form is too large: a file may have at most %d MB.", maxUploadBytes>>20)
	mr := multipart.NewReader(http.MaxBytesReader(c.rw, c.r.Body, maxUploadBytes), params["boundary"])
	c.form = url.Values{}
	fields := 0
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return checkUTF8(c.form)
		}
		var mbe *http.MaxBytesError
		switch {
		case errors.As(err, &mbe):
			return tooLarge
		case err != nil:
			return scopekit.Errorf(scopekit.EBADREQUEST, "The form could not be read.")
		}
		name := part.FormName()
		if name == "file" {
			if c.fileGiven {
				return scopekit.FieldErrorf(scopekit.EBADREQUEST, "file", "The form repeats the field file.")
			}
			c.fileGiven, c.fileName = true, part.FileName()
			c.file, err = io.ReadAll(part)
		} else {
			var v []byte
			v, err = io.ReadAll(io.LimitReader(part, maxFormBytes+1))
			if len(v) > maxFormBytes {
				return tooLarge
			}
			fields++
			if fields > 1000 {
				return scopekit.Errorf(scopekit.EBADREQUEST, "The form has too many fields.")
			}
			c.form.Add(name, string(v))
		}
		if errors.As(err, &mbe) {
			return tooLarge
		}
		if err != nil {
			return scopekit.Errorf(scopekit.EBADREQUEST, "The form could not be read.")
		}
	}
}
