package storage

import (
	"context"
	"database/sql"
	"time"
)

// CustomFont is an organization's font family and the faces it has files
// for (Faces ordered by weight).
type CustomFont struct {
	ID             string
	OrganizationID string
	FontFamily     string
	Faces          []CustomFontFace
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// CustomFontFace is one weight of a custom font: the file's id (in its
// public URL) and format (woff2 or woff).
type CustomFontFace struct {
	FileID string
	Weight int
	Format string
}

// CustomFontFile is a face with its bytes, to store or to serve.
type CustomFontFile struct {
	CustomFontFace
	Bytes []byte
}

// CustomFonts keeps the organizations' custom fonts and their files.
type CustomFonts interface {
	// ListCustomFonts pages through orgID's fonts, oldest first.
	ListCustomFonts(ctx context.Context, orgID string, pq PageQuery) (Page[CustomFont], error)
	// CustomFont reads a font of orgID (ErrNotFound when there is none).
	CustomFont(ctx context.Context, orgID, id string) (CustomFont, error)
	// CreateCustomFont inserts f with files (ID, CreatedAt, Faces and the
	// files' FileID filled in).
	CreateCustomFont(ctx context.Context, f *CustomFont, files []CustomFontFile) error
	// UpdateCustomFont renames the font when family is not nil, replaces or
	// adds the faces of set (new file ids) and removes the weights of
	// remove; check sees the faces the font would have and may refuse them
	// (the transaction is then rolled back with its error).
	UpdateCustomFont(ctx context.Context, orgID, id string, family *string, set []CustomFontFile, remove []int, check func([]CustomFontFace) error) error
	// DeleteCustomFont deletes a font of orgID and its files.
	DeleteCustomFont(ctx context.Context, orgID, id string) (bool, error)
	// CustomFontFile reads the file fileID of font fontID.
	CustomFontFile(ctx context.Context, fontID, fileID string) (CustomFontFile, error)
}

const customFontCols = `f.id, f.organization_id, f.font_family, f.created_at, f.updated_at`

func scanCustomFont(sc interface{ Scan(...any) error }) (CustomFont, error) {
	var f CustomFont
	var created, updated int64
	if err := sc.Scan(&f.ID, &f.OrganizationID, &f.FontFamily, &created, &updated); err != nil {
		return f, notFound(err)
	}
	f.CreatedAt, f.UpdatedAt = FromMillis(created), FromMillis(updated)
	return f, nil
}

// customFontFaces reads the faces of the fonts ids, by font id, in one
// statement per inListMax fonts (a page of fonts is not one query each).
func customFontFaces(ctx context.Context, q queryer, ids ...string) (map[string][]CustomFontFace, error) {
	faces := make(map[string][]CustomFontFace, len(ids))
	for _, id := range ids {
		faces[id] = []CustomFontFace{}
	}
	err := inChunks(ids, func(chunk []string) error {
		rows, err := q.QueryContext(ctx, `SELECT font_id, id, weight, format FROM custom_font_files WHERE font_id IN (`+placeholders(len(chunk))+`) ORDER BY font_id, weight`, anySlice(chunk)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var fontID string
			var f CustomFontFace
			if err := rows.Scan(&fontID, &f.FileID, &f.Weight, &f.Format); err != nil {
				return err
			}
			faces[fontID] = append(faces[fontID], f)
		}
		return rows.Err()
	})
	return faces, err
}

func (db *DB) ListCustomFonts(ctx context.Context, orgID string, pq PageQuery) (Page[CustomFont], error) {
	spec := listSpec{Select: customFontCols, From: `FROM custom_fonts f WHERE f.organization_id = ?`, Args: []any{orgID}, SortCol: "f.created_at", IDCol: "f.id"}
	p, err := runList(ctx, db, spec, pq, func(rows *sql.Rows) (CustomFont, Cursor, error) {
		f, err := scanCustomFont(rows)
		return f, Cursor{N: f.CreatedAt.UnixMilli(), ID: f.ID}, err
	})
	if err != nil {
		return p, err
	}
	ids := make([]string, len(p.Items))
	for i, f := range p.Items {
		ids[i] = f.ID
	}
	faces, err := customFontFaces(ctx, db.r(), ids...)
	if err != nil {
		return p, err
	}
	items := make([]CustomFont, len(p.Items)) // the page's items may be shared with a cache: copied, not changed
	for i, f := range p.Items {
		f.Faces = faces[f.ID]
		items[i] = f
	}
	p.Items = items
	return p, nil
}

func (db *DB) CustomFont(ctx context.Context, orgID, id string) (CustomFont, error) {
	f, err := scanCustomFont(db.r().QueryRowContext(ctx, `SELECT `+customFontCols+` FROM custom_fonts f WHERE f.id = ? AND f.organization_id = ?`, id, orgID))
	if err != nil {
		return f, err
	}
	faces, err := customFontFaces(ctx, db.r(), f.ID)
	f.Faces = faces[f.ID]
	return f, err
}

func putCustomFontFile(tx *Tx, fontID string, file *CustomFontFile) error {
	file.FileID = NewID()
	if _, err := tx.exec(`DELETE FROM custom_font_files WHERE font_id = ? AND weight = ?`, fontID, file.Weight); err != nil {
		return err
	}
	_, err := tx.exec(`INSERT INTO custom_font_files (id, font_id, weight, format, bytes, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		file.FileID, fontID, file.Weight, file.Format, file.Bytes, ms(tx.Now))
	return err
}

func (db *DB) CreateCustomFont(ctx context.Context, f *CustomFont, files []CustomFontFile) error {
	f.ID = NewID()
	return db.Write(ctx, func(tx *Tx) error {
		f.CreatedAt, f.UpdatedAt = tx.Now, tx.Now
		tx.created(f.ID)
		if _, err := tx.exec(`INSERT INTO custom_fonts (id, organization_id, font_family, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`,
			f.ID, f.OrganizationID, f.FontFamily, ms(tx.Now), ms(tx.Now)); err != nil {
			return err
		}
		for i := range files {
			if err := putCustomFontFile(tx, f.ID, &files[i]); err != nil {
				return err
			}
		}
		faces, err := customFontFaces(tx.ctx, tx, f.ID)
		f.Faces = faces[f.ID]
		return err
	})
}

func (db *DB) UpdateCustomFont(ctx context.Context, orgID, id string, family *string, set []CustomFontFile, remove []int, check func([]CustomFontFace) error) error {
	return db.Write(ctx, func(tx *Tx) error {
		res, err := tx.exec(`UPDATE custom_fonts SET updated_at = ? WHERE id = ? AND organization_id = ?`, ms(tx.Now), id, orgID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			if err == nil {
				err = ErrNotFound
			}
			return err
		}
		if family != nil {
			if _, err := tx.exec(`UPDATE custom_fonts SET font_family = ? WHERE id = ?`, *family, id); err != nil {
				return err
			}
		}
		for _, w := range remove {
			if _, err := tx.exec(`DELETE FROM custom_font_files WHERE font_id = ? AND weight = ?`, id, w); err != nil {
				return err
			}
		}
		for i := range set {
			if err := putCustomFontFile(tx, id, &set[i]); err != nil {
				return err
			}
		}
		faces, err := customFontFaces(tx.ctx, tx, id)
		if err != nil {
			return err
		}
		return check(faces[id])
	})
}

func (db *DB) DeleteCustomFont(ctx context.Context, orgID, id string) (bool, error) {
	var n int64
	err := db.Write(ctx, func(tx *Tx) error {
		if _, err := tx.exec(`DELETE FROM custom_font_files WHERE font_id IN (SELECT id FROM custom_fonts WHERE id = ? AND organization_id = ?)`, id, orgID); err != nil {
			return err
		}
		res, err := tx.exec(`DELETE FROM custom_fonts WHERE id = ? AND organization_id = ?`, id, orgID)
		if err == nil {
			n, err = res.RowsAffected()
		}
		if n == 0 {
			tx.unchanged() // nothing deleted, nothing to record
		}
		return err
	})
	return n > 0, err
}

func (db *DB) CustomFontFile(ctx context.Context, fontID, fileID string) (CustomFontFile, error) {
	var f CustomFontFile
	err := db.r().QueryRowContext(ctx, `SELECT id, weight, format, bytes FROM custom_font_files WHERE id = ? AND font_id = ?`, fileID, fontID).
		Scan(&f.FileID, &f.Weight, &f.Format, &f.Bytes)
	return f, notFound(err)
}
