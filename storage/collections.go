package storage

import (
	"context"
	"database/sql"
	"strings"
	"time"
)

// Collection groups spaces and other collections of one organization.
type Collection struct {
	ID             string
	OrganizationID string
	ParentID       *string
	Title          string
	Description    *string
	DefaultLevel   *string // a role, "inherit", or nil (no default access)
	SortKey        string
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

const collectionCols = `c.id, c.organization_id, c.parent_id, c.title, c.description, c.default_level, c.sort_key, c.created_at, c.updated_at`

func scanCollection(sc interface{ Scan(...any) error }) (Collection, error) {
	var c Collection
	var parent, desc, level sql.NullString
	var created, updated int64
	if err := sc.Scan(&c.ID, &c.OrganizationID, &parent, &c.Title, &desc, &level, &c.SortKey, &created, &updated); err != nil {
		return c, notFound(err)
	}
	c.ParentID, c.Description, c.DefaultLevel = nullStr(parent), nullStr(desc), nullStr(level)
	c.CreatedAt, c.UpdatedAt = FromMillis(created), FromMillis(updated)
	return c, nil
}

// Collection reads a collection of any organization; the resolver decides
// who may see it.
func (db *DB) Collection(ctx context.Context, id string) (Collection, error) {
	return keptRead(ctx, db, keptKey("collection", id), one, func() (Collection, error) {
		return scanCollection(db.r().QueryRowContext(ctx, `SELECT `+collectionCols+` FROM collections c WHERE c.id = ?`, id))
	})
}

// CollectionFilter selects a list of an organization's collections, in
// tree order.
type CollectionFilter struct {
	OrganizationID string
	Nested         bool    // every collection, not only the top level
	ParentID       *string // only the collections directly in this one
	// Visible, when set, keeps only the collections it names (the
	// reader's view, computed by the caller); nil keeps them all.
	Visible *CollectionVisibility
}

// CollectionVisibility names the collections of one of Classes and those
// granted to Grantee. Like SpaceVisibility, storage only turns it into SQL;
// who sees what is decided by the caller (graph/permissions.go).
type CollectionVisibility struct {
	Grantee *SpaceGrantee
	Classes []CollectionClass
}

// CollectionClass is the collections directly under one of Parents (and at
// the top level when TopLevel) whose default level is one of Levels (nil:
// none), or any level when AnyLevel.
type CollectionClass struct {
	Parents  []string
	TopLevel bool
	AnyLevel bool
	Levels   []*string
}

// sql is the condition on collections c, values written as SQL literals
// (see SpaceVisibility.sql); own grants are looked up per row by
// content_grants' primary key.
func (v *CollectionVisibility) sql() string {
	var terms []string
	for _, cl := range v.Classes {
		var where []string
		if len(cl.Parents) > 0 {
			where = append(where, "c.parent_id IN ("+sqlList(cl.Parents)+")")
		}
		if cl.TopLevel {
			where = append(where, "c.parent_id IS NULL")
		}
		if len(where) == 0 {
			continue
		}
		term := "(" + strings.Join(where, " OR ") + ")"
		if !cl.AnyLevel {
			var levels []string
			null := false
			for _, l := range cl.Levels {
				if l == nil {
					null = true
				} else {
					levels = append(levels, *l)
				}
			}
			var lv []string
			if len(levels) > 0 {
				lv = append(lv, "c.default_level IN ("+sqlList(levels)+")")
			}
			if null {
				lv = append(lv, "c.default_level IS NULL")
			}
			if len(lv) == 0 {
				continue
			}
			term += " AND (" + strings.Join(lv, " OR ") + ")"
		}
		terms = append(terms, "("+term+")")
	}
	if g := v.Grantee; g != nil {
		who := "(g.principal_kind = 'user' AND g.principal_id = " + sqlString(g.UserID) + ")"
		if len(g.TeamIDs) > 0 {
			who += " OR (g.principal_kind = 'team' AND g.principal_id IN (" + sqlList(g.TeamIDs) + "))"
		}
		terms = append(terms, "EXISTS (SELECT 1 FROM content_grants g WHERE g.target_kind = 'collection' AND g.target_id = c.id AND g.organization_id = c.organization_id AND ("+who+"))")
	}
	if len(terms) == 0 {
		return "(1 = 0)"
	}
	return "(" + strings.Join(terms, " OR ") + ")"
}

// sqlList is vals as a list of SQL string literals.
func sqlList(vals []string) string {
	out := make([]string, len(vals))
	for i, x := range vals {
		out[i] = sqlString(x)
	}
	return strings.Join(out, ", ")
}

// ListCollections pages through the collections of f. keep, when set,
// drops the collections the reader may not see in Go, on every row of the
// organization (a reference for tests); f.Visible does it in SQL, and is
// what lists use: the page and its total are read in SQL, never the
// organization's collections in Go.
func (db *DB) ListCollections(ctx context.Context, f CollectionFilter, keep func(Collection) bool, pq PageQuery) (Page[Collection], error) {
	from := `FROM collections c WHERE c.organization_id = ?`
	args := []any{f.OrganizationID}
	switch {
	case f.ParentID != nil:
		from += ` AND c.parent_id = ?`
		args = append(args, *f.ParentID)
	case !f.Nested:
		from += ` AND c.parent_id IS NULL`
	}
	if f.Visible != nil {
		from += ` AND ` + f.Visible.sql()
	}
	spec := listSpec{Select: collectionCols, From: from, Args: args, SortCol: "c.sort_key", IDCol: "c.id", Text: true, Dynamic: f.Visible != nil,
		Cache: keep == nil}
	return runFilteredList(ctx, db, spec, pq, func(rows *sql.Rows) (Collection, Cursor, error) {
		c, err := scanCollection(rows)
		return c, Cursor{S: c.SortKey, ID: c.ID}, err
	}, keep)
}

// CreateCollection inserts c at the end of its parent (c.ID and the
// timestamps are filled in).
func (db *DB) CreateCollection(ctx context.Context, c *Collection) error {
	c.ID = NewID()
	return db.writeOrg(ctx, c.OrganizationID, func(tx *Tx) error {
		c.CreatedAt, c.UpdatedAt = tx.Now, tx.Now
		pos, key, err := endOf(tx, c.OrganizationID, c.ParentID)
		if err != nil {
			return err
		}
		c.SortKey = key
		_, err = tx.exec(`INSERT INTO collections (id, organization_id, parent_id, title, description, default_level, position, sort_key, created_at, updated_at)
 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, c.ID, c.OrganizationID, strOrNil(c.ParentID), c.Title, strOrNil(c.Description), strOrNil(c.DefaultLevel), pos, key, ms(tx.Now), ms(tx.Now))
		return err
	})
}

// CollectionPatch holds the fields to change; nil leaves a field as it is.
type CollectionPatch struct {
	Title        *string
	Description  **string
	DefaultLevel **string
}

func (db *DB) UpdateCollection(ctx context.Context, id string, p CollectionPatch) error {
	return db.writeOwned(ctx, collectionOrgSQL, id, func(tx *Tx) error {
		set, args := []string{"updated_at = ?"}, []any{ms(tx.Now)}
		if p.Title != nil {
			set, args = append(set, "title = ?"), append(args, *p.Title)
		}
		if p.Description != nil {
			set, args = append(set, "description = ?"), append(args, strOrNil(*p.Description))
		}
		if p.DefaultLevel != nil {
			set, args = append(set, "default_level = ?"), append(args, strOrNil(*p.DefaultLevel))
		}
		return updateByID(tx, "collections", id, set, args)
	})
}

// updateByID runs UPDATE table SET set... WHERE id; ErrNotFound when no row.
func updateByID(tx *Tx, table, id string, set []string, args []any) error {
	q := `UPDATE ` + table + ` SET `
	for i, s := range set {
		if i > 0 {
			q += ", "
		}
		q += s
	}
	res, err := tx.exec(q+` WHERE id = ?`, append(args, id)...)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// DeleteCollection deletes a collection and every collection under it. The
// spaces they hold go to the trash (restorable for the retention period, at
// the top level since their collection is gone); nothing is removed for good.
// It reports false when the collection did not exist.
func (db *DB) DeleteCollection(ctx context.Context, id string) (bool, error) {
	deleted := false
	err := db.writeOwned(ctx, collectionOrgSQL, id, func(tx *Tx) error {
		var orgID string
		err := tx.QueryRowContext(tx.ctx, `SELECT organization_id FROM collections WHERE id = ?`, id).Scan(&orgID)
		if err == sql.ErrNoRows {
			tx.unchanged()
			return nil
		}
		if err != nil {
			return err
		}
		ids, err := subtreeCollections(tx, id)
		if err != nil {
			return err
		}
		end, err := lastPosition(tx, orgID, nil, ContentRef{})
		if err != nil {
			return err
		}
		for _, cid := range ids {
			spaceIDs, err := queryIDs(tx, `SELECT id FROM spaces WHERE parent_id = ? ORDER BY position, id`, cid)
			if err != nil {
				return err
			}
			// Live spaces go to the trash now; spaces already there keep
			// their deletion time. They are restored at the end of the top
			// level, where in-collection visibility means nothing, so it
			// narrows to private.
			for _, sid := range spaceIDs {
				if end, err = keyBetween(end, ""); err != nil {
					return err
				}
				if _, err := tx.exec(`UPDATE spaces SET deleted_at = COALESCE(deleted_at, ?), parent_id = NULL, position = ?, sort_key = ?,
 visibility = CASE WHEN visibility = 'in-collection' THEN 'private' ELSE visibility END WHERE id = ?`, ms(tx.Now), end, end, sid); err != nil {
					return err
				}
			}
			if err := recountGrantees(tx, spaceIDs...); err != nil {
				return err
			}
		}
		if err := deleteGrantsOn(tx, KindCollection, ids...); err != nil {
			return err
		}
		// Children first: parent_id references the collection above.
		for i := len(ids) - 1; i >= 0; i-- {
			if _, err := tx.exec(`DELETE FROM collections WHERE id = ?`, ids[i]); err != nil {
				return err
			}
		}
		// The spaces moved out got their top-level sort keys above; nothing
		// else at the top level changed.
		deleted = true
		return nil
	})
	return deleted, err
}

// MoveCollection places a collection under parent (nil: top level) at.
// The caller checked that parent is not the collection or under it.
func (db *DB) MoveCollection(ctx context.Context, id string, parent *string, at Placement) error {
	return db.writeOwned(ctx, collectionOrgSQL, id, func(tx *Tx) error {
		c, err := scanCollection(tx.QueryRowContext(tx.ctx, `SELECT `+collectionCols+` FROM collections c WHERE c.id = ?`, id))
		if err != nil {
			return err
		}
		same := samePtr(c.ParentID, parent)
		if err := place(tx, c.OrganizationID, ContentRef{KindCollection, id}, parent, same, at); err != nil {
			return err
		}
		_, err = tx.exec(`UPDATE collections SET updated_at = ? WHERE id = ?`, ms(tx.Now), id)
		return err
	})
}

func samePtr(a, b *string) bool { return (a == nil && b == nil) || (a != nil && b != nil && *a == *b) }

// TransferCollection moves a collection, with every collection and space
// under it (trashed spaces included), to the top level of organization to.
// Grants on the moved content are dropped: they name teams and members of
// the organization it leaves.
func (db *DB) TransferCollection(ctx context.Context, id, to string) error {
	return db.Write(ctx, func(tx *Tx) error {
		ids, err := subtreeCollections(tx, id)
		if err != nil {
			return err
		}
		for _, cid := range ids {
			if _, err := tx.exec(`UPDATE collections SET organization_id = ?, updated_at = ? WHERE id = ?`, to, ms(tx.Now), cid); err != nil {
				return err
			}
			spaceIDs, err := queryIDs(tx, `SELECT id FROM spaces WHERE parent_id = ?`, cid)
			if err != nil {
				return err
			}
			if _, err := tx.exec(`UPDATE spaces SET organization_id = ?, updated_at = ? WHERE parent_id = ?`, to, ms(tx.Now), cid); err != nil {
				return err
			}
			if err := deleteGrantsOn(tx, KindSpace, spaceIDs...); err != nil {
				return err
			}
			if err := runSpaceHooks(tx, spaceTransferHooks, spaceIDs...); err != nil {
				return err
			}
		}
		if err := deleteGrantsOn(tx, KindCollection, ids...); err != nil {
			return err
		}
		if _, err := tx.exec(`UPDATE collections SET parent_id = NULL WHERE id = ?`, id); err != nil {
			return err
		}
		return place(tx, to, ContentRef{KindCollection, id}, nil, false, Placement{})
	})
}

// CollectionsByIDs reads the collections with those ids (any organization)
// in one query; unknown ids are left out.
func (db *DB) CollectionsByIDs(ctx context.Context, ids []string) (map[string]Collection, error) {
	out := make(map[string]Collection, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := db.r().QueryContext(ctx, `SELECT `+collectionCols+` FROM collections c WHERE c.id IN (`+placeholders(len(ids))+`)`, anySlice(ids)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		c, err := scanCollection(rows)
		if err != nil {
			return nil, err
		}
		out[c.ID] = c
	}
	return out, rows.Err()
}
