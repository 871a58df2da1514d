package documents

import _ "embed"

//go:generate go run ./internal/gensow -o standard_sow.docx

// StandardSOWName is the name of the built-in template.
const StandardSOWName = "Standard SOW"

//go:embed standard_sow.docx
var standardSOW []byte

// StandardSOW returns the built-in "Standard SOW" template: a cover,
// executive summary, the phases with their services and subservices,
// locations, responsibilities, governance, travel and expense, materials,
// a pricing summary with the contract value, the payment terms and an
// acceptance block, filled from v2 merge data. The slice is a copy.
func StandardSOW() []byte {
	return append([]byte(nil), standardSOW...)
}
