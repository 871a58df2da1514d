package pgstore

import (
	"encoding/binary"
	"strconv"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// A page of records is thousands of values: pgx's scan plans (and the
// destinations boxed as any to reach them) were a sixth of the cost of
// serving one. Rows are read here directly, as pgx would read them, for
// the columns record reads select: text, int8 and jsonb (a jsonb value is
// the row's own bytes: the caller copies it where they are a
// connection's buffer). Anything else is left to pgx (ok false).

// textCol reads a text value.
func textCol(f pgconn.FieldDescription, v []byte) (string, bool) {
	if v == nil || f.DataTypeOID != pgtype.TextOID && f.DataTypeOID != pgtype.VarcharOID {
		return "", false
	}
	return string(v), true
}

// int8Col reads an int8 value.
func int8Col(f pgconn.FieldDescription, v []byte) (int64, bool, error) {
	if v == nil || f.DataTypeOID != pgtype.Int8OID {
		return 0, false, nil
	}
	switch {
	case f.Format == pgtype.BinaryFormatCode && len(v) == 8:
		return int64(binary.BigEndian.Uint64(v)), true, nil
	case f.Format == pgtype.TextFormatCode:
		n, err := strconv.ParseInt(string(v), 10, 64)
		return n, err == nil, err
	}
	return 0, false, nil
}

// jsonbCol reads a jsonb value as its text (the value itself, not a
// copy); NULL is nil, as pgx scans it into a []byte.
func jsonbCol(f pgconn.FieldDescription, v []byte) ([]byte, bool) {
	if f.DataTypeOID != pgtype.JSONBOID {
		return nil, false
	}
	if v != nil && f.Format == pgtype.BinaryFormatCode {
		if len(v) == 0 || v[0] != 1 { // jsonb's binary form: version 1, then the text
			return nil, false
		}
		v = v[1:]
	}
	return v, true
}

// scanCopied scans one row into dest (*string, *int64 and *[]byte) as
// pgx.ScanRow would.
func scanCopied(fields []pgconn.FieldDescription, raw [][]byte, dest []any) (ok bool, err error) {
	if len(fields) != len(dest) || len(raw) != len(dest) {
		return false, nil
	}
	for i, d := range dest {
		switch p := d.(type) {
		case *string:
			*p, ok = textCol(fields[i], raw[i])
		case *int64:
			*p, ok, err = int8Col(fields[i], raw[i])
		case *[]byte:
			*p, ok = jsonbCol(fields[i], raw[i])
		default:
			ok = false
		}
		if !ok || err != nil {
			return false, err
		}
	}
	return true, nil
}

// scanRecordRow scans a row of recordCols (or knownCols) followed by
// extra int8 columns into typ, accountID, s and extra, as scanStored's
// pgx scan would, without boxing any of them; a type or account equal to
// the one of the query (*typ, *accountID on entry) keeps that string.
func scanRecordRow(fields []pgconn.FieldDescription, raw [][]byte, typ, accountID *string, s *stored, extra []*int64) (bool, error) {
	if len(fields) != 8+len(extra) || len(raw) != len(fields) {
		return false, nil
	}
	var ok [8]bool
	var err error
	ok[0] = *typ != "" && string(raw[0]) == *typ && fields[0].DataTypeOID == pgtype.TextOID
	if !ok[0] {
		*typ, ok[0] = textCol(fields[0], raw[0])
	}
	ok[1] = *accountID != "" && string(raw[1]) == *accountID && fields[1].DataTypeOID == pgtype.TextOID
	if !ok[1] {
		*accountID, ok[1] = textCol(fields[1], raw[1])
	}
	if s.id, ok[2], err = int8Col(fields[2], raw[2]); err != nil {
		return false, err
	}
	if s.xmin, ok[3], err = int8Col(fields[3], raw[3]); err != nil {
		return false, err
	}
	s.attrs, ok[4] = jsonbCol(fields[4], raw[4])
	s.rels, ok[5] = jsonbCol(fields[5], raw[5])
	s.createdAt, ok[6] = textCol(fields[6], raw[6])
	s.updatedAt, ok[7] = textCol(fields[7], raw[7])
	for _, b := range ok {
		if !b {
			return false, nil
		}
	}
	for i, e := range extra {
		n, ok, err := int8Col(fields[8+i], raw[8+i])
		if !ok || err != nil {
			return false, err
		}
		*e = n
	}
	return true, nil
}
