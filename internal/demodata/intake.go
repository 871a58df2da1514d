package demodata

// IntakeName is the name of the demo's questionnaire.
const IntakeName = "Network refresh intake"

// intake adds to the catalog what a network refresh also sells (wireless
// survey and deployment, cloud connectivity, an after-hours cutover,
// access points, cutover coordination) and the questionnaire "Network
// refresh intake" (docs/questionnaires.md) whose rules recommend the
// catalog's services, products, governance and expenses from the
// answers.
func (s *seeder) intake(phase, resource map[string]string) string {
	svc := func(name, hours, ph, res, desc string, pos int) {
		s.add("services", attrs{"name": name, "hours": hours, "position": pos, "description": desc},
			rels{"phase": {"phases", phase[ph]}, "resource": {"resources", resource[res]}})
	}
	svc("Wireless site survey", "6", "Design", "Engineer", "A site's radio survey and access point plan.", 3)
	svc("Wireless deployment", "1.5", "Implement", "Engineer", "One access point mounted, configured and tested.", 4)
	svc("Cloud connectivity", "12", "Implement", "Architect", "Site-to-cloud VPN or direct connection, routing and failover.", 5)
	svc("After-hours cutover", "4", "Implement", "Engineer", "A site's cutover outside business hours.", 6)
	s.add("products", attrs{"name": "Wireless access point", "sku": "AP-6E", "unit-price": "450", "unit-cost": "320"}, nil)
	s.add("governances", attrs{"name": "Cutover coordination", "calculation-type": "fixed_hours", "fixed-hours": "4",
		"allocation-method": "prorate_phases_by_effort", "required": false, "position": 3},
		rels{"resource": {"resources", resource["Project Manager"]}})

	options := func(pairs ...string) []any {
		var out []any
		for i := 0; i+1 < len(pairs); i += 2 {
			out = append(out, map[string]any{"slug": pairs[i], "label": pairs[i+1]})
		}
		return out
	}
	questions := []any{
		map[string]any{"slug": "users", "kind": "integer", "required": true, "min": 1, "max": 100000,
			"prompt": "How many people use the network?", "help": "Staff and contractors who sign in; guests do not count."},
		map[string]any{"slug": "sites", "kind": "integer", "required": true, "min": 1, "max": 500,
			"prompt": "How many sites are in scope?", "help": "Offices, branches and warehouses with network equipment."},
		map[string]any{"slug": "firewalls", "kind": "integer", "required": true, "min": 0, "max": 1000,
			"prompt": "How many firewalls are to be replaced?"},
		map[string]any{"slug": "supply_firewalls", "kind": "boolean", "default": false, "when": "answers.firewalls > 0",
			"prompt": "Should we supply the firewall appliances?"},
		map[string]any{"slug": "wifi", "kind": "boolean", "required": true, "prompt": "Is Wi-Fi in scope?"},
		map[string]any{"slug": "access_points", "kind": "integer", "min": 1, "max": 5000, "when": "answers.wifi",
			"prompt": "How many access points are needed?", "help": "Leave it out to plan one per 50 users."},
		map[string]any{"slug": "cloud", "kind": "single_select", "required": true,
			"prompt":  "Which cloud does the network connect to?",
			"options": options("none", "None", "aws", "Amazon Web Services", "azure", "Microsoft Azure", "gcp", "Google Cloud")},
		map[string]any{"slug": "maintenance_window", "kind": "boolean", "required": true,
			"prompt": "Is there a maintenance window in business hours for cutovers?"},
		map[string]any{"slug": "window_start", "kind": "date", "when": "answers.maintenance_window",
			"prompt": "When does the next maintenance window open?"},
		map[string]any{"slug": "notes", "kind": "text", "prompt": "Anything else we should know?"},
	}
	aps := "answers.access_points > 0 ? answers.access_points : ceil(answers.users / 50)"
	rules := []any{
		map[string]any{"slug": "assessment", "service": "Assessment", "quantity": "answers.sites", "phase": "Plan"},
		map[string]any{"slug": "firewall_deployment", "when": "answers.firewalls > 0", "service": "Firewall deployment", "quantity": "answers.firewalls"},
		map[string]any{"slug": "firewall_appliances", "when": "answers.supply_firewalls", "product": "Firewall appliance", "quantity": "answers.firewalls"},
		map[string]any{"slug": "wifi_survey", "when": "answers.wifi", "service": "Wireless site survey", "quantity": "answers.sites"},
		map[string]any{"slug": "wifi_deployment", "when": "answers.wifi", "service": "Wireless deployment", "quantity": aps},
		map[string]any{"slug": "access_points", "when": "answers.wifi", "product": "Wireless access point", "quantity": aps},
		map[string]any{"slug": "cloud", "when": `answers.cloud != "none"`, "service": "Cloud connectivity", "resource": "Architect"},
		map[string]any{"slug": "cutover", "when": "!answers.maintenance_window", "service": "After-hours cutover", "quantity": "answers.sites"},
		map[string]any{"slug": "cutover_coordination", "when": "!answers.maintenance_window", "governance": "Cutover coordination"},
		map[string]any{"slug": "site_visits", "when": "answers.sites > 1", "expense": "Site visits", "category": "Airfare",
			"quantity": "answers.sites - 1", "rate": "450"},
		map[string]any{"slug": "per_diem", "expense": "Per diem", "category": "Per diem", "quantity": "answers.sites * 2", "rate": "75"},
	}
	return s.add("questionnaires", attrs{"name": IntakeName, "slug": "network_refresh",
		"description": "The first call with a client planning a network refresh: size, sites, firewalls, Wi-Fi, cloud and cutover.",
		"tags":        []string{"network", "intake"}, "questions": questions, "rules": rules}, nil)
}
