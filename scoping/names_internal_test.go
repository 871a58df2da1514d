package scoping

import "testing"

// Ensure every name constant the domain code reads is an attribute or a
// relationship some type declares.
func TestNamesAreDeclared(t *testing.T) {
	for _, n := range readNames {
		found := false
		for _, def := range DefaultSchema().Types() {
			_, isAttr := def.Attr(n)
			_, isRel := def.Rel(n)
			if isAttr || isRel {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("%q is read by the domain code but no type declares it", n)
		}
	}
}

// readNames lists the constants of names.go.
var readNames = []string{NameActualHours, NameAllocationMethod, NameCalculationType, NameCode, NameConversionRate, NameCostAdjustment, NameCurrency, NameDefaultCurrency, NameDescription, NameExpenseCategory, NameFilterType, NameFixedHours, NameHourlyCost, NameHourlyRate, NameHours, NameIncludeExpenses, NameIncludeHardware, NameMinorUnits, NameMrrTerms, NameName, NamePaymentFrequency, NamePaymentTerm, NamePosition, NameProject, NameProjectLocation, NameProjectPhase, NameProjectResource, NameProjectService, NameQuantity, NameRate, NameRateTable, NameRevenueAdjustment, NameService, NameServiceCategory, NameServiceType, NameSku, NameStatus, NameSubservice, NameUnitCost, NameUnitHours, NameUnitPrice,
	NameActive, NameAddress, NameApprovalLevel, NameApprovalStage, NameApprovalStep, NameApprovedAt, NameApprovedBy, NameApprovedService, NameApprovers, NameCity, NameClient, NameClientResponsibilities, NameComment, NameCompletedAt, NameConditions, NameCountry, NameEmail, NameExecutiveSummary, NameKind, NameLegacy, NameLineOfBusiness, NameMsaDate, NameOurResponsibilities, NameOutOfScope, NamePostalCode, NamePricingModel, NameProjectName, NameRegion, NameRemote, NameRequiredApprovals, NameResource, NameServiceDescription, NameServiceId, NameSignedAt, NameSolutionSummary, NameSowLanguage, NameState, NameSubmittedAt, NameSubmitterApproves, NameUser, NameUserDefinedFields, NameVersion}
