package documents

import _ "embed"

//go:generate go run ./internal/gensow -o standard_sow.docx

// StandardSOWName is the name of the built-in template.
const StandardSOWName = "Standard SOW"

//go:embed standard_sow.docx
var standardSOW []byte

// StandardSOW returns the built-in "Standard SOW" template, filled from v2
// merge data: a cover, executive summary, the phases with their services
// (each priced) and subservices, deliverables, locations, assumptions,
// responsibilities, out of scope, governance, managed services, travel and
// expense, materials, a pricing summary that adds up to the contract
// value, payment terms, change control, general terms and an acceptance
// block; a section the project has nothing for is left out
// (docs/templates.md). The slice is a copy.
func StandardSOW() []byte {
	return append([]byte(nil), standardSOW...)
}

//go:generate go run ./internal/genproposal -o standard_proposal.pptx

// StandardProposalName is the name of the built-in PPTX template.
const StandardProposalName = "Standard proposal"

//go:embed standard_proposal.pptx
var standardProposal []byte

// StandardProposal returns the built-in "Standard proposal" template, a
// PPTX: a title slide (project, client, account, date), the executive
// summary, the services by phase in a table with hours and prices, and
// the investment with the contract total, filled from v2 merge data. The
// slice is a copy.
func StandardProposal() []byte {
	return append([]byte(nil), standardProposal...)
}

//go:generate go run ./internal/gensow -changeorder -o standard_change_order.docx

// StandardChangeOrderName is the name of the built-in change order template.
const StandardChangeOrderName = "Standard change order"

//go:embed standard_change_order.docx
var standardChangeOrder []byte

// StandardChangeOrder returns the built-in "Standard change order"
// template, a DOCX in the Standard SOW's style filled from v2 merge data's
// change_order: the change order's number, title and reason, each line it
// adds, changes or removes with its price before and after and the change,
// the contract value before and after, and a signature block. The slice is
// a copy.
func StandardChangeOrder() []byte {
	return append([]byte(nil), standardChangeOrder...)
}
