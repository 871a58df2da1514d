package pgstore

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/webhook"
)

var _ webhook.Store = (*DB)(nil)

// Deliveries implements webhook.Store in one statement, served by the
// records_due index. With q.ClaimUntil set it claims the rows it returns:
// they are locked with FOR UPDATE SKIP LOCKED (so concurrent claimers of
// other processes pass over them rather than wait) and their next attempt
// is moved to q.ClaimUntil, so no other process's query finds them until
// then. Complete records the real next attempt; if this process dies
// first, the claim runs out and another process attempts them.
func (db *DB) Deliveries(ctx context.Context, q *webhook.DeliveryQuery) ([]*webhook.Delivery, error) {
	skipIDs := make([]int64, 0, len(q.Skip.Deliveries))
	for id := range q.Skip.Deliveries {
		if n, ok := parseID(id); ok {
			skipIDs = append(skipIDs, n)
		}
	}
	skipSubs := make([]string, 0, len(q.Skip.Subscriptions))
	for id := range q.Skip.Subscriptions {
		skipSubs = append(skipSubs, id)
	}
	sql := `SELECT account_id, id, attrs ->> 'next-attempt-at' AS next, coalesce((attrs ->> 'attempt')::int, 0) AS attempt,
			coalesce(rels -> 'webhook-subscription' ->> 0, '') AS sub, coalesce(rels -> 'event' ->> 0, '') AS event
		FROM records
		WHERE type = 'webhook-deliveries'
			AND ((attrs ->> 'next-attempt-at') COLLATE "C") <= ($1::text COLLATE "C")
			AND attrs ->> 'status' = $2
			AND NOT (id = ANY($3::bigint[]))
			AND NOT (coalesce(rels -> 'webhook-subscription' ->> 0, '') = ANY($4::text[]))
		ORDER BY ((attrs ->> 'next-attempt-at') COLLATE "C"), id
		LIMIT $5`
	args := []any{engine.FormatTime(q.NextAttemptBy), q.Status, skipIDs, skipSubs, max(q.Limit, 0)}
	if !q.ClaimUntil.IsZero() {
		sql = `WITH due AS (` + sql + ` FOR UPDATE SKIP LOCKED)
			UPDATE records r SET attrs = jsonb_set(r.attrs, '{next-attempt-at}', to_jsonb($6::text))
			FROM due WHERE r.type = 'webhook-deliveries' AND r.account_id = due.account_id AND r.id = due.id
			RETURNING due.account_id, due.id, due.next, due.attempt, due.sub, due.event`
		args = append(args, engine.FormatTime(q.ClaimUntil))
	}
	type row struct {
		acct       string
		id         int64
		next       string
		attempt    int
		sub, event string
	}
	var out []*webhook.Delivery
	// one READ COMMITTED transaction without account locks: the claim, then
	// the subscriptions and events of the deliveries, read in one statement
	err := db.run(ctx, modeWrite, func(t *tx) error {
		t.unlocked = true
		out = nil
		var found []row
		q := &query{sql: sql, args: args}
		q.scan = func(rows pgx.Rows) error {
			for rows.Next() {
				var r row
				if err := rows.Scan(&r.acct, &r.id, &r.next, &r.attempt, &r.sub, &r.event); err != nil {
					return err
				}
				found = append(found, r)
			}
			return rows.Err()
		}
		if err := t.roundTrip(q); err != nil {
			return err
		}
		// UPDATE ... RETURNING keeps no order
		slices.SortFunc(found, func(a, b row) int { return cmp.Or(cmp.Compare(a.next, b.next), cmp.Compare(a.id, b.id)) })
		l := webhook.NewLoader(t)
		for _, r := range found {
			l.Want(r.acct, r.sub, r.event)
		}
		for _, r := range found {
			if d := l.Delivery(r.acct, strconv.FormatInt(r.id, 10), r.attempt, webhook.ParseTime(r.next), r.sub, r.event); d != nil {
				out = append(out, d)
			}
		}
		return nil
	})
	return out, err
}

// Complete implements webhook.Store.
func (db *DB) Complete(ctx context.Context, outcomes []*webhook.Outcome) error {
	return webhook.RecordStore{Records: db}.Complete(ctx, outcomes)
}

// Purge implements webhook.Store.
func (db *DB) Purge(ctx context.Context, before time.Time) (int, error) {
	return webhook.RecordStore{Records: db}.Purge(ctx, before)
}

var _ webhook.ClaimRenewer = (*DB)(nil)

// ClaimTTL implements webhook.ClaimRenewer: Claim, or DefaultClaim.
func (db *DB) ClaimTTL() time.Duration {
	if db.Claim > 0 {
		return db.Claim
	}
	return DefaultClaim
}

// RenewClaims implements webhook.ClaimRenewer: the deliveries still at
// the attempt the dispatcher holds get their claim moved to until; one
// completed meanwhile (removed, or advanced to its next attempt) is left
// as Complete wrote it.
func (db *DB) RenewClaims(ctx context.Context, until time.Time, deliveries []*webhook.Delivery) error {
	accts := make([]string, 0, len(deliveries))
	ids := make([]int64, 0, len(deliveries))
	attempts := make([]int32, 0, len(deliveries))
	for _, d := range deliveries {
		if n, ok := parseID(d.ID); ok {
			accts, ids, attempts = append(accts, d.AccountID), append(ids, n), append(attempts, int32(d.Attempt))
		}
	}
	if len(ids) == 0 {
		return nil
	}
	_, err := db.pool.Exec(ctx, `UPDATE records r SET attrs = jsonb_set(r.attrs, '{next-attempt-at}', to_jsonb($1::text))
		FROM unnest($2::text[], $3::bigint[], $4::int[]) AS h(account_id, id, attempt)
		WHERE r.type = 'webhook-deliveries' AND r.account_id = h.account_id AND r.id = h.id
			AND coalesce((r.attrs ->> 'attempt')::int, 0) = h.attempt`,
		engine.FormatTime(until), accts, ids, attempts)
	return err
}
