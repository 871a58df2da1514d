-- Files kept beside records (scoping.BlobTx): a template's DOCX, a
-- generated document and its PDF, addressed by account, kind and the
-- owning record's id, written in the transaction of their record.
CREATE TABLE blobs (
	account_id text  NOT NULL,
	kind       text  NOT NULL,
	id         text  NOT NULL,
	data       bytea NOT NULL,
	PRIMARY KEY (account_id, kind, id)
);
