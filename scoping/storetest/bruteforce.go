package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/stretchr/testify/require"
)

// Ensure list results equal a brute-force evaluation of the same query
// (engine.Query.Matches and SortRecords over every record) for indexed and
// unindexed conditions of each operator, array attributes, to-one and
// to-many relationships, text and numeric sorts with nulls, and pages,
// after updates and deletes moved index entries.
func testListMatchesBruteForce(t *testing.T, open Opener) {
	s := openDefault(t, open)
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"alpha", "Beta", "gamma", "ÄPFEL", ""}
	var all []*engine.Record
	for i := range 240 {
		p := engine.NewRecord(views.TypeProjects, []string{"7", "8"}[i%7/6])
		p.Attrs[views.NameProjectName] = fmt.Sprintf("Project %03d %s", rng.IntN(60), words[i%len(words)])
		p.Attrs[views.NameActive] = rng.IntN(4) != 0
		p.Attrs[views.NameStatus] = []string{"draft", "won", "lost"}[rng.IntN(3)]
		switch rng.IntN(4) {
		case 0: // absent
		case 1:
			p.Attrs[views.NameRevenueAdjustment] = nil
		default:
			p.Attrs[views.NameRevenueAdjustment] = fmt.Sprintf("%d.%02d", rng.IntN(200)-100, rng.IntN(100))
		}
		if rng.IntN(3) != 0 {
			p.Attrs[views.NameMrrTerms] = int64(rng.IntN(30))
		}
		switch rng.IntN(3) {
		case 0:
			p.Attrs[views.NameTagList] = []any{"red", words[rng.IntN(3)]}
		case 1:
			p.Attrs[views.NameTagList] = []any{}
		}
		p.SetRel(views.NameClient, strconv.Itoa(1+rng.IntN(5)))
		if rng.IntN(2) == 0 {
			p.SetRel(views.NameSalesExecutive, strconv.Itoa(1+rng.IntN(3)))
		}
		var tm []string
		for range rng.IntN(3) {
			tm = append(tm, strconv.Itoa(1+rng.IntN(6)))
		}
		if tm != nil {
			p.Rels[views.NameTeammates] = tm
		}
		all = append(all, p)
	}
	Insert(t, s, all...)
	require.NoError(t, s.Update(context.Background(), func(tx engine.Tx) error {
		for i, r := range all {
			switch {
			case i%10 == 0:
				if err := tx.Delete(views.TypeProjects, r.AccountID, r.ID); err != nil {
					return err
				}
			case i%3 == 0:
				r.Attrs[views.NameActive] = !r.Active()
				r.SetRel(views.NameClient, strconv.Itoa(1+(i%5)))
				if err := tx.Replace(r); err != nil {
					return err
				}
			}
		}
		return nil
	}))
	var alive []*engine.Record
	for i, r := range all {
		if i%10 != 0 {
			alive = append(alive, r)
		}
	}
	in, contains := engine.Eq, func(f, v string) engine.Cond {
		return engine.Cond{Field: f, Op: engine.OpContains, Values: []string{v}}
	}
	gte := func(f, v string) engine.Cond { return engine.Cond{Field: f, Op: engine.OpGte, Values: []string{v}} }
	lte := func(f, v string) engine.Cond { return engine.Cond{Field: f, Op: engine.OpLte, Values: []string{v}} }
	null := func(f string) engine.Cond { return engine.Cond{Field: f, Op: engine.OpNull} }
	notNull := func(f string) engine.Cond { return engine.Cond{Field: f, Op: engine.OpNotNull} }
	byName := []engine.SortKey{{Field: views.NameProjectName}}
	queries := []*engine.Query{
		{},
		{Where: []engine.Cond{in(views.NameActive, "true")}, Limit: 25, Offset: 50},
		{Where: []engine.Cond{in(views.NameActive, "TRUE")}},
		{Where: []engine.Cond{in(views.NameActive, "false")}},
		{Where: []engine.Cond{in(views.NameActive, "true"), contains(views.NameProjectName, "BETA")}, Limit: 10},
		{Where: []engine.Cond{contains(views.NameProjectName, "äpfel")}},
		{Where: []engine.Cond{contains(views.NameProjectName, "")}},
		{Where: []engine.Cond{{Field: views.NameProjectName, Op: engine.OpContains}}},
		{Where: []engine.Cond{in("id", all[1].ID, all[2].ID, all[10].ID, "999999", "abc")}},
		{Where: []engine.Cond{in(views.NameStatus, "WON", "lost"), in(views.NameClient, "2", "3")}, Sort: byName},
		{Where: []engine.Cond{in(views.NameClient, "1"), in(views.NameActive, "true")}},
		{Where: []engine.Cond{in(views.NameTeammates, "2")}},
		{Where: []engine.Cond{in(views.NameTeammates, "2", "5"), in(views.NameActive, "false")}},
		{Where: []engine.Cond{null(views.NameSalesExecutive)}},
		{Where: []engine.Cond{notNull(views.NameSalesExecutive)}, Sort: []engine.SortKey{{Field: views.NameSalesExecutive, Desc: true}}},
		{Where: []engine.Cond{null(views.NameTeammates)}},
		{Where: []engine.Cond{null(views.NameRevenueAdjustment)}},
		{Where: []engine.Cond{notNull(views.NameRevenueAdjustment)}},
		{Where: []engine.Cond{null(views.NameTagList)}},
		{Where: []engine.Cond{in(views.NameTagList, "red,alpha")}},
		{Where: []engine.Cond{contains(views.NameTagList, "BET")}},
		{Where: []engine.Cond{in(views.NameMrrTerms, "12", "3")}},
		{Where: []engine.Cond{gte(views.NameProjectName, "Project 030"), lte(views.NameProjectName, "Project 045")}},
		{Where: []engine.Cond{gte(views.NameCreatedAt, "2026-01-02"), in(views.NameActive, "true")}},
		{Where: []engine.Cond{lte(views.NameUpdatedAt, "2000-01-01")}},
		{Where: []engine.Cond{in(views.NameCreatedAt, "2026-01-02T03:04:05.000000z")}, Limit: 3},
		{Where: []engine.Cond{gte(views.NameMrrTerms, "2")}}, // text comparison, as the engine defines it
		{Where: []engine.Cond{in("nonexistent", "x")}},
		{Where: []engine.Cond{null("nonexistent")}, Limit: 5},
		{Where: []engine.Cond{in(views.NameActive, "true")}, Sort: []engine.SortKey{{Field: views.NameProjectName, Desc: true}}, Limit: 30, Offset: 5},
		{Sort: byName, Offset: 1000},
		{Sort: byName, Offset: 200, Limit: 50},
		{Sort: []engine.SortKey{{Field: views.NameRevenueAdjustment, Numeric: true}}},
		{Sort: []engine.SortKey{{Field: views.NameRevenueAdjustment, Numeric: true, Desc: true}}, Limit: 40},
		{Sort: []engine.SortKey{{Field: views.NameMrrTerms, Numeric: true}, {Field: views.NameProjectName, Desc: true}}},
		{Sort: []engine.SortKey{{Field: views.NameMrrTerms}}}, // text sort of numbers: "10" < "2"
		{Sort: []engine.SortKey{{Field: views.NameStatus}, {Field: views.NameRevenueAdjustment, Numeric: true, Desc: true}}, Offset: 7, Limit: 70},
		{Sort: []engine.SortKey{{Field: views.NameTagList}}},
		{Sort: []engine.SortKey{{Field: views.NameClient, Desc: true}}},
		{Sort: []engine.SortKey{{Field: views.NameUpdatedAt, Desc: true}}},
		{Sort: []engine.SortKey{{Field: views.NameProjectName, Numeric: true}}}, // nothing parses: id order
		{AllAccounts: true, Where: []engine.Cond{in(views.NameActive, "true")}, Limit: 20, Offset: 10},
		{AllAccounts: true, Sort: byName, Limit: 15},
		{AllAccounts: true},
		{Where: []engine.Cond{in(views.NameActive, "true")}, Limit: 1000},
	}
	for i, q := range queries {
		for _, acct := range []string{"7", "8"} {
			if q.AllAccounts && acct == "8" {
				continue
			}
			t.Run(fmt.Sprintf("%d/%s", i, acct), func(t *testing.T) {
				q := *q
				q.Type, q.AccountID = views.TypeProjects, acct
				var want []*engine.Record
				for _, r := range alive {
					if (q.AllAccounts || r.AccountID == acct) && q.Matches(r) {
						want = append(want, r)
					}
				}
				slices.SortFunc(want, func(a, b *engine.Record) int { return engine.CompareIDs(a.ID, b.ID) })
				q.SortRecords(want)
				wantTotal := len(want)
				want = window(want, q.Offset, q.Limit)
				got, total := List(t, s, &q)
				require.Equal(t, wantTotal, total, "total of %+v", q)
				require.Equal(t, ids(want), ids(got), "page of %+v", q)
				for j, r := range got {
					require.Equal(t, want[j].Attrs[views.NameProjectName], r.Attrs[views.NameProjectName])
					require.Equal(t, want[j].AccountID, r.AccountID)
				}
			})
		}
	}
}

func window[T any](s []T, offset, limit int) []T {
	if offset >= len(s) {
		return nil
	}
	s = s[offset:]
	if limit > 0 && limit < len(s) {
		s = s[:limit]
	}
	return s
}
