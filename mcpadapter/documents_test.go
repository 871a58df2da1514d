package mcpadapter_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/scopekit/scopekit/documents"
	"github.com/scopekit/scopekit/mcpadapter"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/xuri/excelize/v2"
)

// Ensure documents are read with their generation status and file, and
// that the download links, absolute on the API's base URL and the
// account's slug, come only in the detailed format.
func TestDocuments(t *testing.T) {
	f := newFixture(t)
	sow := f.document(scoping.DocumentSOW, true)
	workbook := f.document(scoping.DocumentPricing, false)
	f.generate()
	f.docs.Converter = nil // no PDF can be made: the SOW keeps its DOCX and ends in error
	noPDF := f.document(scoping.DocumentSOW, true)
	f.generate()
	queued := f.document(scoping.DocumentBreakdown, false)
	c := f.connect(t, f.admin)

	link := func(id, path string) string { return baseURL + "/acme/v1/project-documents/" + id + "/" + path }
	sowFile := "Globex firewall refresh - SOW.docx"
	for _, tc := range []struct {
		name     string
		id       string
		want     mcpadapter.Document // Size and GeneratedAt are checked apart
		download bool                // has a file
		pdf      bool
	}{
		{"sow with its PDF", sow, mcpadapter.Document{DocumentType: "sow", Status: "finished",
			Filename: sowFile, ContentType: documents.ContentTypeDOCX}, true, true},
		{"pricing workbook", workbook, mcpadapter.Document{DocumentType: "pricing", Status: "finished",
			Filename: "Globex firewall refresh - Pricing.xlsx", ContentType: documents.ContentTypeXLSX}, true, false},
		{"sow whose PDF failed", noPDF, mcpadapter.Document{DocumentType: "sow", Status: "error", Filename: sowFile,
			ContentType: documents.ContentTypeDOCX,
			ErrorText:   "no PDF was made: this server has no PDF converter (LibreOffice's soffice is not installed); the DOCX is available"},
			true, false},
		{"queued breakdown", queued, mcpadapter.Document{DocumentType: "breakdown", Status: "queued"}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.want.ID, tc.want.ProjectID = tc.id, f.acme.ProjectID
			if tc.want.DocumentType == "sow" {
				tc.want.TemplateID, tc.want.Template = f.standard(), "Standard SOW"
			}
			var concise, detailed mcpadapter.Document
			c.call(t, mcpadapter.ToolGetDocument, map[string]any{"document_id": tc.id}, &concise)
			c.call(t, mcpadapter.ToolGetDocument, map[string]any{"document_id": tc.id, "response_format": mcpadapter.Detailed}, &detailed)
			created, err := time.Parse(time.RFC3339Nano, concise.CreatedAt)
			require.NoError(t, err)
			assert.WithinDuration(t, time.Now(), created, time.Minute)
			tc.want.CreatedAt = concise.CreatedAt
			if tc.download {
				assert.Positive(t, concise.Size)
				assert.NotEmpty(t, concise.GeneratedAt)
				tc.want.Size, tc.want.GeneratedAt = concise.Size, concise.GeneratedAt
			} else {
				assert.Zero(t, concise.Size)
				assert.Empty(t, concise.GeneratedAt)
			}
			assert.Equal(t, tc.want, concise, "concise has no links")
			if tc.download {
				tc.want.DownloadURL = link(tc.id, "download")
			}
			if tc.pdf {
				tc.want.PDFURL = link(tc.id, "download?format=pdf")
			}
			assert.Equal(t, tc.want, detailed)
		})
	}

	t.Run("as items", func(t *testing.T) {
		var concise, detailed mcpadapter.ListItemsOutput
		c.call(t, mcpadapter.ToolListProjectItems, map[string]any{"project_id": f.acme.ProjectID, "type": "documents"}, &concise)
		created := map[string]string{}
		for i, it := range concise.Items {
			require.NotEmpty(t, it.CreatedAt)
			created[it.ID] = it.CreatedAt
			concise.Items[i].CreatedAt = ""
		}
		assert.Less(t, created[sow], created[noPDF], "the two SOWs differ by their creation")
		// the two SOWs are told apart by their id, template and creation
		assert.ElementsMatch(t, []mcpadapter.Item{
			{ID: sow, Name: sowFile, Status: "finished", DocumentType: "sow", Template: "Standard SOW"},
			{ID: workbook, Name: "Globex firewall refresh - Pricing.xlsx", Status: "finished", DocumentType: "pricing"},
			{ID: noPDF, Name: sowFile, Status: "error", DocumentType: "sow", Template: "Standard SOW"},
			{ID: queued, Name: "breakdown document", Status: "queued", DocumentType: "breakdown"}, // no file yet: named by its type
		}, concise.Items)

		c.call(t, mcpadapter.ToolListProjectItems, map[string]any{"project_id": f.acme.ProjectID, "type": "documents",
			"response_format": mcpadapter.Detailed}, &detailed)
		byID := map[string]mcpadapter.Item{}
		for _, it := range detailed.Items {
			byID[it.ID] = it
			assert.NotContains(t, it.Attributes, "document-url", "links are given as URLs, not paths")
			assert.NotContains(t, it.Attributes, "pdf-url")
			assert.Equal(t, []string{f.acme.ProjectID}, it.Relationships["project"])
		}
		require.Len(t, byID, 4)
		assert.Equal(t, link(sow, "download"), byID[sow].DownloadURL)
		assert.Equal(t, link(sow, "download?format=pdf"), byID[sow].PDFURL)
		assert.Equal(t, true, byID[sow].Attributes["generate-pdf"])
		assert.Equal(t, link(workbook, "download"), byID[workbook].DownloadURL)
		assert.Equal(t, "", byID[workbook].PDFURL)
		assert.Equal(t, "", byID[queued].DownloadURL)
		assert.Equal(t, "queued", byID[queued].Attributes["status"])
	})
}

// Ensure the text of a SOW made from a PowerPoint or Excel template is
// read as the DOCX's is: the slides under their headings, the sheet as a
// table, and nothing is logged as an error.
func TestDocumentTextOfOtherFormats(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	x := excelize.NewFile()
	require.NoError(t, x.SetSheetRow("Sheet1", "A1", &[]any{"Total", "{project_pricing.total_contract_value}"}))
	var sheet bytes.Buffer
	require.NoError(t, x.Write(&sheet))
	xlsx := f.create("acme", "document-templates", map[string]any{"name": "Figures sheet", "format": "xlsx"}, nil)
	_, err := f.svc.UploadTemplateFile(ctx, f.system("acme"), xlsx, "", scoping.ContentTypeXLSX, sheet.Bytes())
	require.NoError(t, err)

	c := f.connect(t, f.admin)
	for _, tc := range []struct {
		template string
		want     []string
	}{
		{documents.StandardProposalName, []string{"## Slide 1\n\nPROPOSAL", "## Slide 4"}},
		{"Figures sheet", []string{"## Sheet1\n\n| Total | 10794.25 |\n| --- | --- |"}},
	} {
		var sow mcpadapter.Document
		c.call(t, mcpadapter.ToolGenerateDocument, map[string]any{"project_id": f.acme.ProjectID, "template": tc.template}, &sow)
		f.generate()
		var text mcpadapter.DocumentTextOutput
		c.call(t, mcpadapter.ToolGetDocumentText, map[string]any{"document_id": sow.ID}, &text)
		for _, want := range tc.want {
			assert.Contains(t, text.Markdown, want, tc.template)
		}
		assert.False(t, text.Truncated)
	}
	assert.NotContains(t, f.logged(), "level=ERROR")
}
