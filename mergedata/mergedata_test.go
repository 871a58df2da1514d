package mergedata_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/mergedata"
	"github.com/scopekit/scopekit/pricing"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// seedRich adds to the demo project a location, a professional service
// there without a phase, and a managed service, so that every section of
// merge data has content.
func (e *env) seedRich() string {
	e.TB.Helper()
	pid := e.seedDemo().ProjectID
	snap := e.snapshot(pid)
	var engineer string
	for _, r := range snap.Resources {
		if r.Str("name") == "Engineer" {
			engineer = r.ID
		}
	}
	require.NotEmpty(e.TB, engineer)
	hq := e.Create("project-locations", map[string]any{"name": "HQ", "address": "1 Main St", "city": "Springfield",
		"region": "IL", "country": "US", "postal-code": "62701"}, "project", "projects", pid)
	e.Create("project-locations", map[string]any{"name": "Home office", "remote": true}, "project", "projects", pid)
	e.Create("project-services", map[string]any{"name": "Cabling", "quantity": "3", "unit-hours": "1.125", "sku": "CAB-1",
		"service-description": "Patch the new firewalls in."},
		"project", "projects", pid, "project-resource", "project-resources", engineer, "project-location", "project-locations", hq)
	e.Create("project-services", map[string]any{"name": "Monitoring", "quantity": "1", "unit-hours": "2",
		"service-type": "managed_services", "payment-frequency": "monthly"},
		"project", "projects", pid, "project-resource", "project-resources", engineer, "project-location", "project-locations", hq)
	return pid
}

// check is one path of the tree and the pricing figure it must equal.
type check struct {
	path []any
	want func(r *pricing.Result) any
}

func fig(f pricing.Fixed) any { return f.String() }

// pricingChecks lists every project_pricing field of docs/mergedata.md, for
// every item and resource row of r.
func pricingChecks(r *pricing.Result) []check {
	pp := func(p ...any) []any { return append([]any{"project_pricing"}, p...) }
	var cs []check
	add := func(path []any, want func(r *pricing.Result) any) { cs = append(cs, check{path, want}) }
	ps := func(r *pricing.Result) *pricing.ProfessionalServices { return &r.ProfessionalServices }
	for name, get := range map[string]func(p *pricing.ProfessionalServices) pricing.Fixed{
		"revenue": func(p *pricing.ProfessionalServices) pricing.Fixed { return p.Revenue },
		"cost":    func(p *pricing.ProfessionalServices) pricing.Fixed { return p.Cost },
		"cost_adjustment": func(p *pricing.ProfessionalServices) pricing.Fixed {
			return p.CostAdjustment
		},
		"profit":             func(p *pricing.ProfessionalServices) pricing.Fixed { return p.Profit },
		"ps_revenue":         func(p *pricing.ProfessionalServices) pricing.Fixed { return p.PSRevenue },
		"ps_cost":            func(p *pricing.ProfessionalServices) pricing.Fixed { return p.PSCost },
		"ps_profit":          func(p *pricing.ProfessionalServices) pricing.Fixed { return p.PSProfit },
		"revenue_adjustment": func(p *pricing.ProfessionalServices) pricing.Fixed { return p.RevenueAdjustment },
		"hours":              func(p *pricing.ProfessionalServices) pricing.Fixed { return p.Hours },
	} {
		add(pp("professional_services", name), func(r *pricing.Result) any { return fig(get(ps(r))) })
	}
	for i := range r.ProfessionalServices.Phases {
		ph := func(r *pricing.Result) *pricing.PhaseTotals { return &r.ProfessionalServices.Phases[i] }
		add(pp("professional_services", "phases", i, "name"), func(r *pricing.Result) any { return ph(r).Name })
		add(pp("professional_services", "phases", i, "hours"), func(r *pricing.Result) any { return fig(ph(r).Hours) })
		add(pp("professional_services", "phases", i, "revenue"), func(r *pricing.Result) any { return fig(ph(r).Revenue) })
		add(pp("professional_services", "phases", i, "cost"), func(r *pricing.Result) any { return fig(ph(r).Cost) })
		add(pp("professional_services", "phases", i, "profit"), func(r *pricing.Result) any { return fig(ph(r).Profit) })
	}
	section := func(name string, get func(r *pricing.Result) [3]pricing.Fixed) {
		for k, f := range []string{"revenue", "cost", "profit"} {
			add(pp(name, f), func(r *pricing.Result) any { return fig(get(r)[k]) })
		}
	}
	section("project_governance", func(r *pricing.Result) [3]pricing.Fixed {
		g := r.ProjectGovernance
		return [3]pricing.Fixed{g.Revenue, g.Cost, g.Profit}
	})
	add(pp("project_governance", "hours"), func(r *pricing.Result) any { return fig(r.ProjectGovernance.Hours) })
	for i := range r.ProjectGovernance.Items {
		it := func(r *pricing.Result) *pricing.GovernanceItem { return &r.ProjectGovernance.Items[i] }
		p := func(f string) []any { return pp("project_governance", "items", i, f) }
		add(p("name"), func(r *pricing.Result) any { return it(r).Name })
		add(p("resource_name"), func(r *pricing.Result) any { return it(r).ResourceName })
		add(p("hours"), func(r *pricing.Result) any { return fig(it(r).Hours) })
		add(p("hourly_rate"), func(r *pricing.Result) any { return fig(it(r).HourlyRate) })
		add(p("hourly_cost"), func(r *pricing.Result) any { return fig(it(r).HourlyCost) })
		add(p("revenue"), func(r *pricing.Result) any { return fig(it(r).Revenue) })
		add(p("cost"), func(r *pricing.Result) any { return fig(it(r).Cost) })
		add(p("profit"), func(r *pricing.Result) any { return fig(it(r).Profit) })
	}
	section("travel_and_expense", func(r *pricing.Result) [3]pricing.Fixed {
		x := r.TravelAndExpense
		return [3]pricing.Fixed{x.Revenue, x.Cost, x.Profit}
	})
	for i := range r.TravelAndExpense.Items {
		it := func(r *pricing.Result) *pricing.ExpenseItem { return &r.TravelAndExpense.Items[i] }
		p := func(f string) []any { return pp("travel_and_expense", "items", i, f) }
		add(p("description"), func(r *pricing.Result) any { return it(r).Description })
		add(p("category"), func(r *pricing.Result) any { return it(r).Category })
		add(p("quantity"), func(r *pricing.Result) any { return fig(it(r).Quantity) })
		add(p("rate"), func(r *pricing.Result) any { return fig(it(r).Rate) })
		add(p("unit_cost"), func(r *pricing.Result) any { return fig(it(r).UnitCost) })
		add(p("revenue"), func(r *pricing.Result) any { return fig(it(r).Revenue) })
		add(p("cost"), func(r *pricing.Result) any { return fig(it(r).Cost) })
		add(p("profit"), func(r *pricing.Result) any { return fig(it(r).Profit) })
	}
	section("materials", func(r *pricing.Result) [3]pricing.Fixed {
		x := r.Materials
		return [3]pricing.Fixed{x.Revenue, x.Cost, x.Profit}
	})
	for i := range r.Materials.Items {
		it := func(r *pricing.Result) *pricing.MaterialItem { return &r.Materials.Items[i] }
		p := func(f string) []any { return pp("materials", "items", i, f) }
		add(p("name"), func(r *pricing.Result) any { return it(r).Name })
		add(p("sku"), func(r *pricing.Result) any { return it(r).SKU })
		add(p("quantity"), func(r *pricing.Result) any { return fig(it(r).Quantity) })
		add(p("unit_price"), func(r *pricing.Result) any { return fig(it(r).UnitPrice) })
		add(p("unit_cost"), func(r *pricing.Result) any { return fig(it(r).UnitCost) })
		add(p("revenue"), func(r *pricing.Result) any { return fig(it(r).Revenue) })
		add(p("cost"), func(r *pricing.Result) any { return fig(it(r).Cost) })
		add(p("profit"), func(r *pricing.Result) any { return fig(it(r).Profit) })
	}
	section("managed_services", func(r *pricing.Result) [3]pricing.Fixed {
		x := r.ManagedServices
		return [3]pricing.Fixed{x.Revenue, x.Cost, x.Profit}
	})
	for i := range r.ManagedServices.Items {
		it := func(r *pricing.Result) *pricing.ManagedItem { return &r.ManagedServices.Items[i] }
		p := func(f string) []any { return pp("managed_services", "items", i, f) }
		add(p("name"), func(r *pricing.Result) any { return it(r).Name })
		add(p("revenue"), func(r *pricing.Result) any { return fig(it(r).Revenue) })
		add(p("cost"), func(r *pricing.Result) any { return fig(it(r).Cost) })
		add(p("profit"), func(r *pricing.Result) any { return fig(it(r).Profit) })
	}
	for i := range r.Resources.Rows {
		row := func(r *pricing.Result) *pricing.ResourceRow { return &r.Resources.Rows[i] }
		p := func(f string) []any { return pp("resources", i, f) }
		add(p("resource_name"), func(r *pricing.Result) any { return row(r).ResourceName })
		add(p("resource_slug"), func(r *pricing.Result) any { return row(r).ResourceSlug })
		add(p("hours"), func(r *pricing.Result) any { return fig(row(r).Hours) })
		add(p("hourly_rate"), func(r *pricing.Result) any { return fig(row(r).HourlyRate) })
		add(p("hourly_cost"), func(r *pricing.Result) any { return fig(row(r).HourlyCost) })
		add(p("revenue"), func(r *pricing.Result) any { return fig(row(r).Revenue) })
		add(p("cost"), func(r *pricing.Result) any { return fig(row(r).Cost) })
		add(p("profit"), func(r *pricing.Result) any { return fig(row(r).Profit) })
	}
	last := len(r.Resources.Rows)
	total := func(f string) []any { return pp("resources", last, f) }
	tot := func(r *pricing.Result) *pricing.ResourceTotal { return &r.Resources.Total }
	add(total("resource_slug"), func(*pricing.Result) any { return pricing.TotalSlug })
	add(total("service_cost"), func(r *pricing.Result) any { return fig(tot(r).ServiceCost) })
	add(total("pm_cost"), func(r *pricing.Result) any { return fig(tot(r).PMCost) })
	add(total("expense_cost"), func(r *pricing.Result) any { return fig(tot(r).ExpenseCost) })
	add(total("material_cost"), func(r *pricing.Result) any { return fig(tot(r).MaterialCost) })
	add(total("cost_adjustment"), func(r *pricing.Result) any { return fig(tot(r).CostAdjustment) })
	add(total("total_cost"), func(r *pricing.Result) any { return fig(tot(r).TotalCost) })
	add(total("total_revenue"), func(r *pricing.Result) any { return fig(tot(r).TotalRevenue) })
	add(total("total_profit"), func(r *pricing.Result) any { return fig(tot(r).TotalProfit) })
	add(total("hourly_rate"), func(r *pricing.Result) any { return fig(tot(r).HourlyRate) })
	add(total("hourly_cost"), func(r *pricing.Result) any { return fig(tot(r).HourlyCost) })
	add(pp("total_contract_value"), func(r *pricing.Result) any { return fig(r.TotalContractValue) })
	add(pp("total_contract_cost"), func(r *pricing.Result) any { return fig(r.TotalContractCost) })
	add(pp("total_contract_profit"), func(r *pricing.Result) any { return fig(r.TotalContractProfit) })
	add(pp("total_contract_margin"), func(r *pricing.Result) any { return fig(r.TotalContractMargin) })
	return cs
}

// Ensure every project_pricing field of docs/mergedata.md is the pricing
// result's figure, with the payment term including hardware or not.
func TestProjectPricingIsThePricingResult(t *testing.T) {
	e := mustEnv(t)
	pid := e.seedRich()
	term := e.snapshot(pid).PaymentTerm.ID
	for _, hardware := range []bool{false, true} {
		t.Run(fmt.Sprintf("include-hardware=%v", hardware), func(t *testing.T) {
			e.Update("payment-terms", term, map[string]any{"include-hardware": hardware})
			snap := e.snapshot(pid)
			require.NotEmpty(t, snap.Pricing.ManagedServices.Items)
			v2 := tree(t, mergedata.BuildV2(snap, now))
			checks := pricingChecks(snap.Pricing)
			require.Greater(t, len(checks), 100)
			for _, c := range checks {
				assert.Equal(t, c.want(snap.Pricing), at(t, v2, c.path...), "%v", c.path)
			}
			// and the resources array ends with the total row
			rows := at(t, v2, "project_pricing", "resources").([]any)
			assert.Len(t, rows, len(snap.Pricing.Resources.Rows)+1)
		})
	}
}

// Ensure include_hardware changes professional_services.revenue (and v1's
// professional_services_revenue) but never ps_revenue: the worked
// example's 9669.25 against 13669.23.
func TestIncludeHardware(t *testing.T) {
	e := mustEnv(t)
	pid := e.seedDemo().ProjectID
	term := e.snapshot(pid).PaymentTerm.ID
	for _, tc := range []struct {
		hardware                        bool
		revenue, cost, profit, contract string
	}{
		{false, "9669.25", "4616.30", "5052.95", "10794.25"},
		{true, "13669.23", "7616.30", "6052.93", "14794.23"},
	} {
		e.Update("payment-terms", term, map[string]any{"include-hardware": tc.hardware})
		snap := e.snapshot(pid)
		v2 := tree(t, mergedata.BuildV2(snap, now))
		ps := at(t, v2, "project_pricing", "professional_services")
		msg := fmt.Sprintf("include-hardware %v", tc.hardware)
		assert.Equal(t, tc.revenue, at(t, ps, "revenue"), msg)
		assert.Equal(t, tc.cost, at(t, ps, "cost"), msg)
		assert.Equal(t, tc.profit, at(t, ps, "profit"), msg)
		assert.Equal(t, "9669.25", at(t, ps, "ps_revenue"), msg)
		assert.Equal(t, "4616.30", at(t, ps, "ps_cost"), msg)
		assert.Equal(t, "5052.95", at(t, ps, "ps_profit"), msg)
		assert.Equal(t, tc.contract, at(t, v2, "project_pricing", "total_contract_value"), msg)
		assert.Equal(t, tc.hardware, at(t, v2, "project", "payment_term", "include_hardware"), msg)

		v1 := tree(t, mergedata.BuildV1(snap, now))
		assert.Equal(t, tc.revenue, at(t, v1, "pricing", "professional_services_revenue"), msg)
		assert.Equal(t, tc.contract, at(t, v1, "pricing", "total_revenue"), msg)
	}
}

// Ensure the services and subservices of phases and locations carry the
// pricing result's figures, services without a phase are listed in a last
// phase with an empty name, and each location lists its own services.
func TestLines(t *testing.T) {
	e := mustEnv(t)
	snap := e.snapshot(e.seedRich())
	res := snap.Pricing
	for _, v := range []struct {
		name     string
		tree     map[string]any
		withCost bool
	}{{"v1", tree(t, mergedata.BuildV1(snap, now)), false}, {"v2", tree(t, mergedata.BuildV2(snap, now)), true}} {
		t.Run(v.name, func(t *testing.T) {
			listed := map[string]map[string]any{}
			phases := at(t, v.tree, "phases").([]any)
			require.Len(t, phases, 3, "Plan, Implement and the services without a phase")
			for k, p := range phases {
				if k < len(res.Phases) {
					pt := res.Phases[k]
					assert.Equal(t, pt.Name, at(t, p, "name"))
					assert.Equal(t, pt.Hours.String(), at(t, p, "total_hours"))
					assert.Equal(t, pt.Revenue.String(), at(t, p, "total_revenue"))
					checkPhaseParts(t, p, pt, v.withCost)
				}
				for _, s := range at(t, p, "services").([]any) {
					listed[at(t, s, "name").(string)] = s.(map[string]any)
				}
			}
			last := phases[2]
			assert.Equal(t, "", at(t, last, "name"))
			assert.Equal(t, "", at(t, last, "slug"))
			require.Len(t, at(t, last, "services"), 2)
			assert.Equal(t, "Cabling", at(t, last, "services", 0, "name"))
			assert.Equal(t, "managed_services", at(t, last, "services", 1, "service_type"))

			require.Len(t, listed, len(snap.Services), "every service once")
			for i, rec := range snap.Services {
				s, f := listed[rec.Str("name")], res.Service(i)
				assert.Equal(t, f.ExtendedHours.String(), s["extended_hours"], rec.Str("name"))
				assert.Equal(t, f.TotalHours.String(), s["total_hours"], rec.Str("name"))
				assert.Equal(t, f.Revenue.String(), s["revenue"], rec.Str("name"))
				if v.withCost {
					assert.Equal(t, f.Cost.String(), s["cost"], rec.Str("name"))
				} else {
					assert.NotContains(t, s, "cost")
				}
				for j := range snap.Subservices[i] {
					sf, sub := res.Subservice(i, j), at(t, s, "subservices", j)
					assert.Equal(t, sf.ExtendedHours.String(), at(t, sub, "extended_hours"))
					assert.Equal(t, sf.Revenue.String(), at(t, sub, "revenue"))
				}
			}
			cabling := listed["Cabling"]
			for k, want := range map[string]any{"quantity": "3.00", "unit_hours": "1.125", "extended_hours": "3.38",
				"sku": "CAB-1", "description": "Patch the new firewalls in.", "location_name": "HQ", "resource_name": "Engineer"} {
				assert.Equal(t, want, cabling[k], k)
			}
			assessment := listed["Assessment"]
			assert.Equal(t, "Engineer", at(t, assessment, "subservices", 0, "resource_name"), "inherited from the service")
			assert.Equal(t, "Architect", at(t, assessment, "subservices", 1, "resource_name"))

			locs := at(t, v.tree, "locations").([]any)
			require.Len(t, locs, 2)
			for k, want := range map[string]any{"name": "HQ", "address": "1 Main St", "city": "Springfield", "region": "IL",
				"country": "US", "postal_code": "62701", "remote": false} {
				assert.Equal(t, want, at(t, locs[0], k), k)
			}
			assert.Equal(t, []any{
				map[string]any{"name": "Cabling", "quantity": "3.00", "total_hours": cabling["total_hours"], "revenue": cabling["revenue"]},
				map[string]any{"name": "Monitoring", "quantity": "1.00", "total_hours": listed["Monitoring"]["total_hours"], "revenue": listed["Monitoring"]["revenue"]},
			}, at(t, locs[0], "services"))
			assert.Equal(t, "Home office", at(t, locs[1], "name"))
			assert.Equal(t, true, at(t, locs[1], "remote"))
			assert.Equal(t, []any{}, at(t, locs[1], "services"))
		})
	}
}

// Ensure dates are wrappers (v2) or MM/DD/YYYY strings (v1), null or ""
// when unset, the MSA date falls back to the client's, and times are taken
// by their UTC date.
func TestDates(t *testing.T) {
	e := mustEnv(t)
	client := e.Create("clients", map[string]any{"name": "Initech"})
	pid := e.Create("projects", map[string]any{"project-name": "Dated"}, "client", "clients", client)
	wrap := func(value, short, long string) any {
		return map[string]any{"value": value, "to_short_date": short, "to_long_date": long}
	}
	for _, tc := range []struct {
		name                       string
		project, client            map[string]any
		msa, submitted, approved   any // v2
		msaV1                      string
		printedOnV2Long, printedV1 string
	}{
		{name: "unset", project: map[string]any{"msa-date": nil, "submitted-at": nil, "approved-at": nil},
			client: map[string]any{"msa-date": nil}, msa: nil, submitted: nil, approved: nil, msaV1: ""},
		{name: "project dates", project: map[string]any{"msa-date": "2026-03-05",
			"submitted-at": "2026-11-20T17:45:00.000000Z", "approved-at": "2026-11-21T23:59:59.999999Z"},
			client: map[string]any{"msa-date": "2025-01-31"},
			msa:    wrap("2026-03-05", "03/05/2026", "March 5, 2026"), msaV1: "03/05/2026",
			submitted: wrap("2026-11-20", "11/20/2026", "November 20, 2026"),
			approved:  wrap("2026-11-21", "11/21/2026", "November 21, 2026")},
		{name: "client's MSA date", project: map[string]any{"msa-date": nil, "submitted-at": nil, "approved-at": nil},
			client: map[string]any{"msa-date": "2025-01-31"},
			msa:    wrap("2025-01-31", "01/31/2025", "January 31, 2025"), msaV1: "01/31/2025"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.setComputed("projects", pid, tc.project)
			e.setComputed("clients", client, tc.client)
			snap := e.snapshot(pid)
			v2 := tree(t, mergedata.BuildV2(snap, now))
			assert.Equal(t, tc.msa, at(t, v2, "project", "msa_date"))
			assert.Equal(t, tc.submitted, at(t, v2, "project", "submitted_at"))
			assert.Equal(t, tc.approved, at(t, v2, "project", "approved_at"))
			assert.Equal(t, wrap("2026-11-22", "11/22/2026", "November 22, 2026"), at(t, v2, "project", "printed_on"))
			v1 := tree(t, mergedata.BuildV1(snap, now))
			assert.Equal(t, tc.msaV1, at(t, v1, "msa_date"))
			assert.Equal(t, "11/22/2026", at(t, v1, "printed_on"))
		})
	}
}

// Ensure a project with nothing optional set has every text path as "",
// every person with empty name and email, and empty lists, never absent
// members or nulls.
func TestEmptyOptionalText(t *testing.T) {
	e := mustEnv(t)
	client := e.Create("clients", map[string]any{"name": "Initech"})
	pid := e.Create("projects", map[string]any{"project-name": "Bare"}, "client", "clients", client)
	e.Create("project-services", map[string]any{"name": "Unnamed work", "unit-hours": "1"}, "project", "projects", pid)
	snap := e.snapshot(pid)
	require.Nil(t, snap.PaymentTerm)
	v2 := tree(t, mergedata.BuildV2(snap, now))
	v1 := tree(t, mergedata.BuildV1(snap, now))

	texts := []string{"executive_summary", "solution_summary", "our_responsibilities", "client_responsibilities", "out_of_scope"}
	for _, f := range append(texts, "line_of_business") {
		assert.Equal(t, "", at(t, v2, "project", f), f)
	}
	for _, f := range texts {
		assert.Equal(t, "", at(t, v1, f), f)
	}
	for _, who := range []string{"sales_executive", "presales_engineer"} {
		assert.Equal(t, map[string]any{"name": "", "email": ""}, at(t, v2, "project", who), who)
		assert.Equal(t, map[string]any{"name": "", "email": ""}, at(t, v1, who), who)
	}
	assert.Equal(t, []any{}, at(t, v2, "project", "teammates"))
	assert.Equal(t, map[string]any{}, at(t, v2, "project", "user_defined_fields"))
	assert.Equal(t, map[string]any{"name": "", "pricing_model": "", "include_expenses": true, "include_hardware": false},
		at(t, v2, "project", "payment_term"))
	for _, tr := range []map[string]any{v1, v2} {
		assert.Equal(t, []any{}, at(t, tr, "locations"))
		svc := at(t, tr, "phases", 0, "services", 0)
		for _, f := range []string{"description", "sku", "resource_name", "location_name"} {
			assert.Equal(t, "", at(t, svc, f), f)
		}
		assert.Equal(t, []any{}, at(t, svc, "subservices"))
	}
	for _, f := range []string{"items"} {
		for _, sec := range []string{"project_governance", "travel_and_expense", "materials", "managed_services"} {
			assert.Equal(t, []any{}, at(t, v2, "project_pricing", sec, f), sec)
		}
	}
	assert.Equal(t, []any{}, at(t, v1, "pricing", "governance"))
	assert.Equal(t, []any{}, at(t, v1, "pricing", "expenses"))
	noNulls(t, v1, "v1")
}

// noNulls fails on any null in a tree (v1 has no optional dates).
func noNulls(t *testing.T, v any, path string) {
	t.Helper()
	switch v := v.(type) {
	case nil:
		t.Errorf("%s is null", path)
	case map[string]any:
		for k, x := range v {
			noNulls(t, x, path+"."+k)
		}
	case []any:
		for i, x := range v {
			noNulls(t, x, fmt.Sprintf("%s[%d]", path, i))
		}
	}
}

// Ensure v1 carries no cost, profit or margin anywhere.
func TestV1HasNoCosts(t *testing.T) {
	e := mustEnv(t)
	v1 := tree(t, mergedata.BuildV1(e.snapshot(e.seedRich()), now))
	var walk func(v any, path string)
	walk = func(v any, path string) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				for _, bad := range []string{"cost", "profit", "margin"} {
					assert.NotContains(t, k, bad, path)
				}
				walk(x, path+"."+k)
			}
		case []any:
			for i, x := range v {
				walk(x, fmt.Sprintf("%s[%d]", path, i))
			}
		}
	}
	walk(v1, "v1")
}

// Ensure teammates who were removed are not in v2, and the others are, in
// the order they were added.
func TestRemovedTeammatesExcluded(t *testing.T) {
	e := mustEnv(t)
	pid := e.seedDemo().ProjectID // Ada stays, Fred was removed
	later := e.Member("lin@acme.test", "Lin Later")
	e.Create("project-teammates", nil, "project", "projects", pid, "user", "users", later)
	v2 := tree(t, mergedata.BuildV2(e.snapshot(pid), now))
	assert.Equal(t, []any{
		map[string]any{"name": "Ada Admin", "email": "ada@acme.test"},
		map[string]any{"name": "Lin Later", "email": "lin@acme.test"},
	}, at(t, v2, "project", "teammates"))
}

// Ensure the project fields come from the project and its related records.
func TestProjectFields(t *testing.T) {
	e := mustEnv(t)
	s := e.seedDemo()
	sales := e.Member("sam@acme.test", "Sam Sales")
	presales := e.Member("pat@acme.test", "Pat Presales")
	lob := e.Create("lines-of-business", map[string]any{"name": "Managed Security"})
	e.Create("user-defined-fields", map[string]any{"name": "po_number", "resource-type": "projects"})
	in := map[string]any{"solution-summary": "New firewalls.", "out-of-scope": "Wi-Fi.", "user-defined-fields": map[string]any{"po_number": "PO-7"}}
	e.Update("projects", s.ProjectID, in)
	e.setRels("projects", s.ProjectID, "sales-executive", "users", sales, "presales-engineer", "users", presales,
		"line-of-business", "lines-of-business", lob)
	e.setComputed("projects", s.ProjectID, map[string]any{"status": "pending_approval"})
	v2 := tree(t, mergedata.BuildV2(e.snapshot(s.ProjectID), now))
	for _, c := range []struct {
		path []any
		want any
	}{
		{[]any{"id"}, s.ProjectID},
		{[]any{"status"}, "pending_approval"},
		{[]any{"status_label"}, "Pending Approval"},
		{[]any{"solution_summary"}, "New firewalls."},
		{[]any{"out_of_scope"}, "Wi-Fi."},
		{[]any{"line_of_business"}, "Managed Security"},
		{[]any{"sales_executive"}, map[string]any{"name": "Sam Sales", "email": "sam@acme.test"}},
		{[]any{"presales_engineer"}, map[string]any{"name": "Pat Presales", "email": "pat@acme.test"}},
		{[]any{"user_defined_fields"}, map[string]any{"po_number": "PO-7"}},
	} {
		assert.Equal(t, c.want, at(t, v2, append([]any{"project"}, c.path...)...), "%v", c.path)
	}
	v1 := tree(t, mergedata.BuildV1(e.snapshot(s.ProjectID), now))
	assert.Equal(t, "Sam Sales", at(t, v1, "sales_executive", "name"))
}

// setRels sets to-one relationships through the engine; rels are name,
// type, id triples.
func (e *env) setRels(typ, id string, rels ...string) {
	e.TB.Helper()
	in := &engine.Input{Rels: map[string]engine.RelInput{}}
	for i := 0; i+2 < len(rels); i += 3 {
		in.Rels[rels[i]] = engine.RelInput{Refs: []engine.Ref{{Type: rels[i+1], ID: rels[i+2]}}}
	}
	_, err := e.Svc.Update(context.Background(), e.Actor, typ, id, in, engine.Options{})
	require.NoError(e.TB, err)
}

// Ensure money follows the currency's minor units: a yen project shows
// whole yen, and the currency section names the symbol.
func TestCurrency(t *testing.T) {
	e := mustEnv(t)
	require.NoError(t, e.Svc.Setup(context.Background(), func(a *scoping.Admin) error {
		_, err := a.EnsureCurrency(e.Acct, "JPY", "Yen", "150")
		return err
	}))
	table := e.Create("rate-tables", map[string]any{"name": "Yen", "currency": "JPY"})
	client := e.Create("clients", map[string]any{"name": "Nakatomi"})
	pid := e.Create("projects", map[string]any{"project-name": "Tokyo"}, "client", "clients", client, "rate-table", "rate-tables", table)
	res := e.Create("project-resources", map[string]any{"name": "Engineer", "hourly-rate": "20000", "hourly-cost": "9000"}, "project", "projects", pid)
	e.Create("project-services", map[string]any{"name": "Install", "quantity": "1", "unit-hours": "1.5"},
		"project", "projects", pid, "project-resource", "project-resources", res)
	v2 := tree(t, mergedata.BuildV2(e.snapshot(pid), now))
	assert.Equal(t, map[string]any{"code": "JPY", "unit": "¥", "minor_units": float64(0)}, at(t, v2, "currency"))
	assert.Equal(t, "30000", at(t, v2, "phases", 0, "services", 0, "revenue"))
	assert.Equal(t, "13500", at(t, v2, "phases", 0, "services", 0, "cost"))
	assert.Equal(t, "1.50", at(t, v2, "phases", 0, "services", 0, "total_hours"))
	assert.Equal(t, "30000", at(t, v2, "project_pricing", "total_contract_value"))
}

func TestCurrencySymbol(t *testing.T) {
	for code, want := range map[string]string{"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥", "INR": "₹", "CHF": "CHF", "XYZ": "XYZ", "": ""} {
		assert.Equal(t, want, mergedata.CurrencySymbol(code), code)
	}
}

func TestStatusLabel(t *testing.T) {
	for status, want := range map[string]string{"draft": "Draft", "pending_approval": "Pending Approval", "approved": "Approved",
		"won": "Won", "lost": "Lost", "canceled": "Canceled", "on_hold": "On Hold", "": ""} {
		assert.Equal(t, want, mergedata.StatusLabel(status), status)
	}
}

// Ensure the builders leave the snapshot as they found it and build the
// same tree twice.
func TestDeterministic(t *testing.T) {
	e := mustEnv(t)
	snap := e.snapshot(e.seedRich())
	before := tree(t, snap.Pricing)
	a, b := tree(t, mergedata.BuildV2(snap, now)), tree(t, mergedata.BuildV2(snap, now))
	assert.Equal(t, a, b)
	assert.Equal(t, before, tree(t, snap.Pricing))
	assert.True(t, strings.HasPrefix(at(t, a, "project", "printed_on", "value").(string), "2026-"))
}

// Ensure v2's delivery section is the project's delivery figures, and
// follows the services' status and actual hours.
func TestDeliverySection(t *testing.T) {
	e := mustEnv(t)
	pid := e.seedDemo().ProjectID
	snap := e.snapshot(pid)
	e.Update("project-services", snap.Services[0].ID, map[string]any{"status": "complete", "actual-hours": "30"})
	snap = e.snapshot(pid)
	v2 := tree(t, mergedata.BuildV2(snap, now))
	assert.Equal(t, "0.6012", at(t, v2, "delivery", "rollup", "project", "percent_complete"))
	assert.Equal(t, 1.0, at(t, v2, "delivery", "rollup", "project", "status_counts", "complete"))
	assert.Equal(t, "30.00", at(t, v2, "delivery", "estimate_vs_actual", "total", "actual_hours"))
	assert.Equal(t, snap.Delivery.EstimateVsActual.Total.ActualCost.String(), at(t, v2, "delivery", "estimate_vs_actual", "total", "actual_cost"))
	rows := at(t, v2, "delivery", "estimate_vs_actual", "rows").([]any)
	assert.Len(t, rows, 4)
}
