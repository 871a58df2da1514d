package views

// The outbox's vocabulary, shared by the domain (package scoping), which
// records events and queues deliveries in the transaction of a change,
// and package webhook, which delivers them.

// Event types: what the outbox records and webhooks deliver.
const (
	EventProjectStatusChanged  = "project_status_changed"
	EventServiceStatusChanged  = "service_status_changed"
	EventDocumentStatusChanged = "document_status_changed"
	// EventChangeOrderStatusChanged fires when a change order moves to a
	// new status (docs/lifecycle.md).
	EventChangeOrderStatusChanged = "change_order_status_changed"
	// EventAcceptanceStatusChanged fires when a client's acceptance
	// request moves to a new status: accepted, declined or revoked.
	EventAcceptanceStatusChanged = "acceptance_status_changed"
)

// Statuses of a delivery (webhook-deliveries) and of a publication (an
// attempt, webhook-publications).
const (
	DeliveryPending      = "pending"
	PublicationDelivered = "delivered"
	PublicationRejected  = "rejected"
	PublicationFailed    = "failed"
)

// Attributes of webhook subscriptions that are stored but never served,
// so they have no declaration (and no Name constant).
const (
	// SealedSecretAttr holds the sealed subscription secret (base64).
	SealedSecretAttr = "secret-sealed"
	// FailingSinceAttr holds when a subscription's deliveries began to fail
	// in a row (cleared by a success).
	FailingSinceAttr = "failing-since"
)
