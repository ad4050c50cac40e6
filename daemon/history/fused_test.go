package history

import (
	"bytes"
	"context"
	"database/sql"
	"testing"
)

// execBound writes what ExecContext would: every kind of argument the
// history binds lands as given, and a statement that fails (a duplicate
// primary key) is an error that leaves none of its rows.
func TestExecBoundWritesAndFails(t *testing.T) {
	s, _ := openTemp(t)
	ctx := context.Background()
	if _, err := s.w.ExecContext(ctx, `CREATE TABLE bound (id INTEGER PRIMARY KEY, s TEXT, b BLOB, f REAL, n INTEGER)`); err != nil {
		t.Fatal(err)
	}
	insert := `INSERT INTO bound (id, s, b, f, n) VALUES (?, ?, ?, ?, ?), (?, ?, ?, ?, ?)`
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		return execBound(ctx, tx, insert, int64(1), "één", []byte{0, 1, 2}, 1.5, nil, int64(2), "", []byte(nil), float64(0), int64(7))
	})
	if err != nil {
		t.Fatalf("execBound: %v", err)
	}
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		return execBound(ctx, tx, insert, int64(3), "x", nil, 0.0, nil, int64(1), "dup", nil, 0.0, nil)
	})
	if err == nil {
		t.Fatal("a duplicate id was not an error")
	}
	rows, err := s.w.QueryContext(ctx, `SELECT id, s, b, f, n FROM bound ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	type row struct {
		id   int64
		s    string
		b    []byte
		f    float64
		n    sql.NullInt64
		null bool
	}
	var got []row
	for rows.Next() {
		var r row
		var b []byte
		if err := rows.Scan(&r.id, &r.s, &b, &r.f, &r.n); err != nil {
			t.Fatal(err)
		}
		r.b, r.null = b, b == nil
		got = append(got, r)
	}
	if len(got) != 2 {
		t.Fatalf("rows %+v, want ids 1 and 2 only (the failed statement's row 3 must not be there)", got)
	}
	if g := got[0]; g.id != 1 || g.s != "één" || !bytes.Equal(g.b, []byte{0, 1, 2}) || g.f != 1.5 || g.n.Valid {
		t.Errorf("row 1 = %+v", g)
	}
	if g := got[1]; g.id != 2 || g.s != "" || !g.null || g.f != 0 || g.n.Int64 != 7 {
		t.Errorf("row 2 = %+v", g)
	}
}
