package catalogimport_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/scopekit/scopekit/boltstore/bolttest"
	"github.com/scopekit/scopekit/catalogimport"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/pgstore"
	"github.com/scopekit/scopekit/pgstore/pgtest"
	"github.com/scopekit/scopekit/scoping"
	"github.com/xuri/excelize/v2"
)

// catalog10k is a workbook of MaxRows rows, every sheet used: 10 phases,
// 40 resources, 2 rate tables with a rate per resource, 3,000 services
// (naming 10 lines of business and 20 categories, created with the
// import) and 6,868 subservices. Its figures grow with more: every row of
// catalog10k(b, 1) differs from the same row of catalog10k(b, 0).
func catalog10k(b *testing.B, more int) []byte {
	b.Helper()
	f := excelize.NewFile()
	defer f.Close()
	sheets := []struct {
		name string
		rows [][]any
	}{{"Phases", [][]any{{"Name", "Position"}}}, {"Resources", [][]any{{"Name", "Hourly rate", "Hourly cost"}}},
		{"Services", [][]any{{"Name", "Phase", "Resource", "Hours", "Line of business", "Category", "SKU"}}},
		{"Subservices", [][]any{{"Service", "Name", "Hours", "Quantity", "Resource"}}},
		{"Rate tables", [][]any{{"Name", "Currency", "Default"}}}, {"Rates", [][]any{{"Rate table", "Resource", "Hourly rate", "Hourly cost"}}}}
	add := func(i int, row ...any) { sheets[i].rows = append(sheets[i].rows, row) }
	for p := range 10 {
		add(0, fmt.Sprintf("Phase %d", p), p+1+more)
	}
	for r := range 40 {
		add(1, fmt.Sprintf("Resource %d", r), 100+r+more, 50+r)
	}
	for s := range 3000 {
		add(2, fmt.Sprintf("Service %d", s), fmt.Sprintf("Phase %d", s%10), fmt.Sprintf("Resource %d", s%40), 4+s%9+more,
			fmt.Sprintf("Line %d", s%10), fmt.Sprintf("Category %d", s%20), "SKU-"+strconv.Itoa(s))
	}
	for u := range 6868 {
		add(3, fmt.Sprintf("Service %d", u%3000), fmt.Sprintf("Task %d", u), "1.5", 1+u%3+more, fmt.Sprintf("Resource %d", u%40))
	}
	for t, table := range []string{"Standard", "Premium"} {
		add(4, table, "USD", t == more)
		for r := range 40 {
			add(5, table, fmt.Sprintf("Resource %d", r), 110+r+t*20+more, 55+r)
		}
	}
	n := 0
	for i, s := range sheets {
		if i == 0 {
			if err := f.SetSheetName("Sheet1", s.name); err != nil {
				b.Fatal(err)
			}
		} else if _, err := f.NewSheet(s.name); err != nil {
			b.Fatal(err)
		}
		for r, row := range s.rows {
			cell, _ := excelize.CoordinatesToCellName(1, r+1)
			if err := f.SetSheetRow(s.name, cell, &row); err != nil {
				b.Fatal(err)
			}
		}
		n += len(s.rows) - 1
	}
	if n != catalogimport.MaxRows {
		b.Fatalf("%d rows, not %d", n, catalogimport.MaxRows)
	}
	buf, err := f.WriteToBuffer()
	if err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// BenchmarkImport10k imports catalog10k into an empty account ("create":
// every row a new record), again into the account that holds it
// ("unchanged"), and alternately with every figure changed and back
// ("update": every row an update), on bbolt and on PostgreSQL
// (SCOPEKIT_TEST_DATABASE; skipped without). Rows/s is the throughput;
// on PostgreSQL trips/row and stmts/row count the round trips and the
// statements.
func BenchmarkImport10k(b *testing.B) {
	data, changed := catalog10k(b, 0), catalog10k(b, 1)
	for _, storeName := range []string{"bolt", "postgres"} {
		b.Run(storeName, func(b *testing.B) {
			var db engine.Store
			ctx := context.Background()
			trips := &pgtest.Counter{} // the round trips to PostgreSQL
			if storeName == "bolt" {
				db = bolttest.Open(b, scoping.DefaultSchema())
			} else {
				if os.Getenv(pgtest.EnvVar) == "" {
					b.Skip(pgtest.EnvVar + " is not set")
				}
				pg, err := pgstore.Open(ctx, pgtest.URL(b), scoping.DefaultSchema(), pgstore.WithTracer(trips))
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { pg.Close() })
				db, ctx = pg, trips.Mark(ctx)
			}
			svc := scoping.NewService(db)
			perRow := func(b *testing.B) {
				b.ReportMetric(float64(catalogimport.MaxRows*b.N)/b.Elapsed().Seconds(), "rows/s")
				if n, stmts := trips.Counts(); n > 0 {
					b.ReportMetric(float64(n)/float64(catalogimport.MaxRows*b.N), "trips/row")
					b.ReportMetric(float64(len(stmts))/float64(catalogimport.MaxRows*b.N), "stmts/row")
				}
			}
			accounts := 0
			account := func() *engine.Actor {
				accounts++
				var id string
				if err := svc.Setup(ctx, func(a *scoping.Admin) error {
					acct, err := a.EnsureAccount("bench"+strconv.Itoa(accounts), "Bench", "USD")
					id = acct.ID
					return err
				}); err != nil {
					b.Fatal(err)
				}
				a, err := svc.SystemActor(ctx, id)
				if err != nil {
					b.Fatal(err)
				}
				return a
			}
			importOnce := func(a *engine.Actor, data []byte) *catalogimport.Report {
				rep, err := svc.ImportCatalog(ctx, a, catalogimport.File{Format: catalogimport.XLSX, Data: data}, false)
				if err != nil {
					for _, p := range rep.Problems[:min(5, len(rep.Problems))] {
						b.Log(p.String())
					}
					b.Fatal(err)
				}
				return rep
			}
			var full *engine.Actor
			b.Run("create", func(b *testing.B) {
				for b.Loop() {
					b.StopTimer()
					full = account()
					trips.Reset()
					b.StartTimer()
					if rep := importOnce(full, data); rep.Sheets["subservices"].Created != 6868 {
						b.Fatalf("%+v", rep.Sheets["subservices"])
					}
				}
				perRow(b)
			})
			b.Run("unchanged", func(b *testing.B) {
				if full == nil {
					full = account()
					importOnce(full, data)
				}
				trips.Reset()
				for b.Loop() {
					if rep := importOnce(full, data); rep.Sheets["subservices"].Unchanged != 6868 {
						b.Fatalf("%+v", rep.Sheets["subservices"])
					}
				}
				perRow(b)
			})
			b.Run("update", func(b *testing.B) {
				trips.Reset()
				files := [][]byte{changed, data}
				for i := 0; b.Loop(); i++ {
					if rep := importOnce(full, files[i%2]); rep.Sheets["subservices"].Updated != 6868 {
						b.Fatalf("%+v", rep.Sheets["subservices"])
					}
				}
				perRow(b)
			})
		})
	}
}
