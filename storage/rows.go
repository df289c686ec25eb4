package storage

import "database/sql"

// collect reads every row of a query with scan.
func collect[T any](rows *sql.Rows, err error, scan func(interface{ Scan(...any) error }) (T, error)) ([]T, error) {
	var out []T
	err = eachRow(rows, err, func(sc interface{ Scan(...any) error }) error {
		v, err := scan(sc)
		out = append(out, v)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// eachRow calls fn with every row of a query (err: the query's), stopping
// at fn's first error, and closes the rows.
func eachRow(rows *sql.Rows, err error, fn func(sc interface{ Scan(...any) error }) error) error {
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}
