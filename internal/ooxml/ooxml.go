// Package ooxml knows the Office Open XML files ScopeKit reads and
// writes (Word, PowerPoint and Excel): their media types, defined here
// once, how a file's format is told, and its text read back as Markdown
// (text.go).
package ooxml

import (
	"archive/zip"
	"bytes"
)

// The formats, by the extension of their files.
const (
	DOCX = "docx"
	PPTX = "pptx"
	XLSX = "xlsx"
)

// The media types of the formats.
const (
	MediaDOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
	MediaPPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
	MediaXLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
)

// MainPart is the entry every file of a format has.
var MainPart = map[string]string{DOCX: "word/document.xml", PPTX: "ppt/presentation.xml", XLSX: "xl/workbook.xml"}

// Format returns the format of an Office file (docx, pptx or xlsx) by the
// main part it has, or "" when it is none of them (or not a zip).
func Format(file []byte) string {
	zr, err := zip.NewReader(bytes.NewReader(file), int64(len(file)))
	if err != nil {
		return ""
	}
	for _, f := range zr.File {
		for _, name := range []string{DOCX, PPTX, XLSX} {
			if f.Name == MainPart[name] {
				return name
			}
		}
	}
	return ""
}
