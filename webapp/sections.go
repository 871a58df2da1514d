package webapp

import (
	"github.com/scopekit/scopekit/scoping/views"
)

// The settings (docs/workspace.md "Settings"): what an account's
// administrators configure, one section per record type (its list, its
// form and its record page, built from the type's declaration) or a page
// of its own (the account, sign-in, import, preferences). Sections are
// grouped in families; the menu shows a section when the role may read
// what it shows.

// family is a group of sections in the menu.
type family struct{ Key, Title string }

var families = []family{
	{"catalog", "Catalog"}, {"templates", "Templates"}, {"people", "People"},
	{"account", "Account"}, {"webhooks", "Webhooks"}, {"preferences", "Preferences"},
}

// section is one page of the settings. A section of a record type (Type
// set) lists, creates, edits and archives its records through the
// generic use cases; its form's fields come from the declaration.
type section struct {
	Key    string // the path segment under /settings/
	Family string
	Title  string // the menu's and the list's title
	One    string // one record, for buttons and messages ("service")
	Type   string // the record type; "" for a page of its own
	Guard  string // a page of its own: the permission it needs to be seen
	// Cols are the list's columns (attributes or relationships).
	Cols []string
	// Fields are the form's fields in order; nil for every writable
	// attribute and stored relationship of the type.
	Fields []string
	// CreateOnly fields are asked on creation only (shown afterwards).
	CreateOnly []string
	// Parent is the relationship of a child section to its parent record:
	// its records are listed and created on the parent's page.
	Parent string
	// Children are the sections listed on a record's page.
	Children []string
	// Search is the filter of the list's search box ("" for none).
	Search string
	Labels map[string]string
	Help   map[string]string
	// Note is said above the section's forms.
	Note string
	// Blank names a record whose first column is empty (a line-of-business
	// approval of every line).
	Blank string
}

// sections are every section, in menu order within each family.
var sections = []*section{
	{Key: "services", Family: "catalog", Title: "Services", One: "service", Type: views.TypeServices,
		Cols: []string{views.NameName, views.NameSku, views.NameServiceCategory, views.NamePhase, views.NameHours, views.NameState},
		Fields: []string{views.NameName, views.NameSku, views.NameDescription, views.NameHours, views.NameServiceType,
			views.NamePaymentFrequency, views.NamePhase, views.NameLineOfBusiness, views.NameServiceCategory, views.NameResource, views.NamePosition},
		Children: []string{"subservices"}, Search: views.NameName,
		Help: map[string]string{views.NameHours: "Unit hours: a project's quantity multiplies them."}},
	{Key: "subservices", Family: "catalog", Title: "Subservices", One: "subservice", Type: views.TypeSubservices, Parent: views.NameService,
		Cols:   []string{views.NameName, views.NameHours, views.NameQuantity, views.NameResource},
		Fields: []string{views.NameName, views.NameHours, views.NameQuantity, views.NameResource, views.NamePosition}},
	{Key: "phases", Family: "catalog", Title: "Phases", One: "phase", Type: views.TypePhases,
		Cols: []string{views.NameName, views.NamePosition}, Search: views.NameName,
		Help: map[string]string{views.NameSowLanguage: "What a statement of work says about the phase."}},
	{Key: "resources", Family: "catalog", Title: "Resources", One: "resource", Type: views.TypeResources,
		Cols:   []string{views.NameName, views.NameExternalName, views.NameHourlyRate, views.NameHourlyCost},
		Search: views.NameName,
		Help:   map[string]string{views.NameHourlyRate: "Used where a rate table has no rate for the resource."}},
	{Key: "rate-tables", Family: "catalog", Title: "Rate tables", One: "rate table", Type: views.TypeRateTables,
		Cols: []string{views.NameName, views.NameCurrency, views.NameDefault}, Children: []string{"rates"}, Search: views.NameName,
		Help: map[string]string{views.NameCurrency: "An ISO 4217 code the account has (blank: the account's default currency).",
			views.NameDefault: "New projects take the default rate table."}},
	{Key: "rates", Family: "catalog", Title: "Rates", One: "rate", Type: views.TypeResourceRates, Parent: views.NameRateTable,
		Cols:   []string{views.NameResource, views.NameHourlyRate, views.NameHourlyCost},
		Fields: []string{views.NameResource, views.NameHourlyRate, views.NameHourlyCost}},
	{Key: "products", Family: "catalog", Title: "Products", One: "product", Type: views.TypeProducts,
		Cols: []string{views.NameName, views.NameSku, views.NameUnitPrice, views.NameUnitCost}, Search: views.NameName},
	{Key: "governance", Family: "catalog", Title: "Governance", One: "governance item", Type: views.TypeGovernances,
		Cols:   []string{views.NameName, views.NameCalculationType, views.NameRate, views.NameFixedHours, views.NameRequired},
		Search: views.NameName,
		Help: map[string]string{views.NameRate: "A share of the services' hours: 0.1 is 10 % (below 10).",
			views.NameRequired: "Required items are added to every new project."}},
	{Key: "blueprints", Family: "catalog", Title: "Blueprints", One: "blueprint", Type: views.TypeBlueprints,
		Cols: []string{views.NameName, views.NameDescription}, Children: []string{"blueprint-items"}, Search: views.NameName},
	{Key: "blueprint-items", Family: "catalog", Title: "Services of the blueprint", One: "service", Type: views.TypeBlueprintItems,
		Parent: views.NameBlueprint, Cols: []string{views.NameService, views.NameQuantity, views.NamePosition},
		Fields: []string{views.NameService, views.NameQuantity, views.NamePosition}},
	{Key: "lines-of-business", Family: "catalog", Title: "Lines of business", One: "line of business", Type: views.TypeLinesOfBusiness,
		Cols: []string{views.NameName, views.NameCode}, Search: views.NameName},
	{Key: "service-categories", Family: "catalog", Title: "Service categories", One: "service category", Type: views.TypeServiceCategories,
		Cols: []string{views.NameName}, Search: views.NameName},
	{Key: "expense-categories", Family: "catalog", Title: "Expense categories", One: "expense category", Type: views.TypeExpenseCategories,
		Cols: []string{views.NameName}, Search: views.NameName},
	{Key: "import", Family: "catalog", Title: "Import and export", Guard: "catalog"},

	{Key: "templates", Family: "templates", Title: "Document templates", One: "template", Type: views.TypeDocumentTemplates,
		Cols:       []string{views.NameName, views.NameFormat, views.NameFilename, views.NameSize, views.NameProblems},
		Fields:     []string{views.NameName, views.NameFormat, views.NameFilename, views.NameLenient},
		CreateOnly: []string{views.NameFormat}, Search: views.NameName,
		Help: map[string]string{views.NameLenient: "A lenient template is stored with the problems its check finds; a strict one is refused until they are fixed.",
			views.NameFilename: "The name its file downloads under."}},

	{Key: "users", Family: "people", Title: "Users", One: "user", Type: views.TypeUsers,
		Cols:       []string{views.NameName, views.NameEmail, views.NameRoles, views.NameStatus, views.NameUserType},
		Fields:     []string{views.NameName, views.NameEmail, views.NameTitle, views.NamePhone, views.NameRoles, views.NameUserType},
		CreateOnly: []string{views.NameUserType}, Search: views.NameName,
		Labels: map[string]string{views.NameRoles: "Role", views.NameUserType: "Kind"},
		Help: map[string]string{views.NameUserType: "A person is invited and signs in; a service account is a program, with credentials of its own.",
			views.NameEmail: "A person's email is theirs in every account they belong to."}},
	{Key: "roles", Family: "people", Title: "Roles", One: "role", Type: views.TypeRoles,
		Cols:   []string{views.NameName, views.NameProjectVisibility},
		Fields: []string{views.NameName, views.NameProjectVisibility, views.NamePermissions}, Search: views.NameName,
		Help: map[string]string{views.NameProjectVisibility: "Assigned: only the projects the person is a teammate of."}},
	{Key: "identity-providers", Family: "people", Title: "Identity providers", One: "identity provider", Type: views.TypeIdentityProviders,
		Cols: []string{views.NameName, views.NameIssuerURL, views.NameEmailDomains, views.NameActive},
		Fields: []string{views.NameName, views.NameIssuerURL, views.NameClientID, views.NameClientSecret, views.NameEmailDomains,
			views.NamePasswordsAllowed, views.NameJitProvisioning, views.NameActive, views.NameDefaultRole},
		Search: views.NameName,
		Note: "A provider that changes how people sign in (a new one, its domains, whether it allows passwords, on or off) " +
			"signs everyone out of the workspace when it is saved, you included: sign in again.",
		Help: map[string]string{views.NameEmailDomains: "One domain a line. Only verified domains are routed to the provider (Domains).",
			views.NameClientSecret:     "Leave blank to keep the stored secret.",
			views.NameJitProvisioning:  "Create a member at the first sign-in of a person of a verified domain.",
			views.NamePasswordsAllowed: "Off: people of the provider's domains sign in through it only."}},
	{Key: "domains", Family: "people", Title: "Domains", One: "domain", Type: views.TypeVerifiedDomains,
		Cols: []string{views.NameDomain, views.NameStatus, views.NameVerifiedAt}, Fields: []string{views.NameDomain},
		Help: map[string]string{views.NameDomain: "An email domain of the account's people, proved by a DNS TXT record."}},
	{Key: "sign-in", Family: "people", Title: "Sign-in", Guard: "settings"},

	{Key: "account", Family: "account", Title: "Account", Guard: "settings"},
	{Key: "currencies", Family: "account", Title: "Currencies", One: "currency", Type: views.TypeCurrencies,
		Cols: []string{views.NameCode, views.NameName, views.NameConversionRate, views.NameMinorUnits},
		Help: map[string]string{views.NameConversionRate: "How many units of this currency one unit of the default currency buys.",
			views.NameMinorUnits: "Blank: from ISO 4217."}},
	{Key: "payment-terms", Family: "account", Title: "Payment terms", One: "payment term", Type: views.TypePaymentTerms,
		Cols:   []string{views.NameName, views.NamePricingModel, views.NameIncludeExpenses, views.NameIncludeHardware, views.NameDefault},
		Search: views.NameName},
	{Key: "general-terms", Family: "account", Title: "General terms", One: "general term", Type: views.TypeGeneralTerms,
		Cols: []string{views.NameName, views.NamePosition}, Search: views.NameName,
		Help: map[string]string{views.NameBody: "The clause every statement of work prints, in the order of the positions."}},
	{Key: "approval-levels", Family: "account", Title: "Approval levels", One: "approval level", Type: views.TypeApprovalLevels,
		Cols: []string{views.NameName, views.NameKind, views.NamePosition, views.NameRequiredApprovals},
		Fields: []string{views.NameName, views.NameKind, views.NamePosition, views.NameRequiredApprovals, views.NameSubmitterApproves,
			views.NameConditions},
		Children: []string{"level-approvals"}, Search: views.NameName,
		Help: map[string]string{views.NameConditions: `When the level applies, as JSON: [] always; for example [{"field": "contract-margin", "operator": "<", "value": "0.3"}].`,
			views.NameRequiredApprovals: "0: every approver of the step signs."}},
	{Key: "level-approvals", Family: "account", Title: "Line-of-business approvals", One: "line-of-business approval",
		Type: views.TypeLineOfBusinessApprovals, Parent: views.NameApprovalLevel, Blank: "Every line of business",
		Cols:   []string{views.NameLineOfBusiness, views.NameApprovers, views.NameRequiredApprovals},
		Fields: []string{views.NameLineOfBusiness, views.NameApprovers, views.NameRequiredApprovals},
		Help: map[string]string{views.NameLineOfBusiness: "None: every line of business.",
			views.NameRequiredApprovals: "Blank: the level's count."}},

	{Key: "webhooks", Family: "webhooks", Title: "Webhook subscriptions", One: "subscription", Type: views.TypeWebhookSubscriptions,
		Cols:   []string{views.NameEventType, views.NameDestinationURL, views.NameActive, views.NameDisabledReason},
		Fields: []string{views.NameEventType, views.NameDestinationURL, views.NameDescription, views.NameActive},
		Help:   map[string]string{views.NameDestinationURL: "An https address that takes a POST for each event."}},

	{Key: "preferences", Family: "preferences", Title: "Settings design", Guard: "user_preferences"},
}

// sectionByKey finds a section by its path segment.
var sectionByKey = func() map[string]*section {
	m := map[string]*section{}
	for _, s := range sections {
		m[s.Key] = s
	}
	return m
}()

// sectionOfType is the section of a record type (for links to records).
var sectionOfType = func() map[string]*section {
	m := map[string]*section{}
	for _, s := range sections {
		if s.Type != "" {
			m[s.Type] = s
		}
	}
	return m
}()

// displayAttr is the attribute that names a record of typ in lists and
// choices.
func displayAttr(typ string) string {
	switch typ {
	case views.TypeCurrencies:
		return views.NameCode
	case views.TypeVerifiedDomains:
		return views.NameDomain
	case views.TypeWebhookSubscriptions:
		return views.NameDestinationURL
	case views.TypeResourceRates, views.TypeBlueprintItems, views.TypeLineOfBusinessApprovals:
		return ""
	}
	return views.NameName
}
