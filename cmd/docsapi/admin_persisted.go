package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"

	"docsapi/server"
	"docsapi/storage"
)

// maxPersistedFileBytes bounds a file given to persisted-queries add (as
// the server's --graphql-persisted-queries manifest).
const maxPersistedFileBytes = 64 << 20

// adminPersistedQueries registers GraphQL documents in the database, so
// that every replica on it serves them by hash and --graphql-persisted-only
// runs them (beside the --graphql-persisted-queries file). It works while
// servers run: they look registered documents up as requests come.
//
//	docsapi admin persisted-queries add --db PATH [--name N] FILE...
//	docsapi admin persisted-queries list --db PATH
//	docsapi admin persisted-queries remove --db PATH HASH...
func adminPersistedQueries(args []string) error {
	if len(args) == 0 {
		return errors.New("admin persisted-queries needs a command: add, list or remove")
	}
	f := newFlags("admin persisted-queries " + args[0])
	dbPath := f.DB()
	var name *string
	if args[0] == "add" {
		name = f.String("name", "", "name of the operation (a GraphQL file; default: its operation's name, else the file's name)")
	}
	switch args[0] {
	case "add", "list", "remove":
	default:
		return fmt.Errorf("unknown admin persisted-queries command %q (add, list or remove)", args[0])
	}
	if err := f.Parse(args[1:]); err != nil {
		return err
	}
	ctx := context.Background()
	switch args[0] {
	case "add":
		if f.NArg() == 0 {
			return errors.New("admin persisted-queries add needs one FILE or more: GraphQL documents or Apollo persisted query manifests")
		}
		var qs []storage.PersistedQuery
		for _, path := range f.Args() {
			got, err := readPersistedFile(path, *name)
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			qs = append(qs, got...)
		}
		if len(qs) > storage.MaxPersistedQueries {
			return fmt.Errorf("%d documents, more than %d", len(qs), storage.MaxPersistedQueries)
		}
		db, err := openExisting(*dbPath)
		if err != nil {
			return err
		}
		defer db.Close()
		added, err := db.AddPersistedQueries(ctx, qs)
		if err != nil {
			return err
		}
		for _, q := range qs {
			if err := printJSON(persistedLine{ID: q.Hash, Name: q.Name}); err != nil {
				return err
			}
		}
		fmt.Fprintf(os.Stderr, "%d documents registered, %d of them new\n", len(qs), added)
		return nil
	case "list":
		if f.NArg() != 0 {
			return errors.New("admin persisted-queries list takes no arguments")
		}
		db, err := openExisting(*dbPath)
		if err != nil {
			return err
		}
		defer db.Close()
		qs, err := db.ListPersistedQueries(ctx)
		if err != nil {
			return err
		}
		for _, q := range qs {
			if err := printJSON(persistedLine{ID: q.Hash, Name: q.Name, CreatedAt: q.CreatedAt.Format("2006-01-02T15:04:05.000Z"), Body: q.Body}); err != nil {
				return err
			}
		}
		return nil
	default: // remove
		if f.NArg() == 0 {
			return errors.New("admin persisted-queries remove needs one HASH or more (the ids list prints)")
		}
		db, err := openExisting(*dbPath)
		if err != nil {
			return err
		}
		defer db.Close()
		removed, err := db.RemovePersistedQueries(ctx, f.Args())
		if errors.Is(err, storage.ErrNotFound) {
			return fmt.Errorf("%w; nothing removed", err)
		}
		if err != nil {
			return err
		}
		return printJSON(struct {
			Removed int `json:"removed"`
		}{removed})
	}
}

// persistedLine is one JSON line of add and list: id is the hash clients
// send (sha256Hash).
type persistedLine struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	CreatedAt string `json:"createdAt,omitempty"`
	Body      string `json:"body,omitempty"`
}

// readPersistedFile reads a file to register: an Apollo persisted query
// manifest (a .json file, each id checked against its body) or one GraphQL
// document, named name, else by its first operation, else by the file.
// Each document must parse and be within the server's default document
// bound.
func readPersistedFile(path, name string) ([]storage.PersistedQuery, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	data, err := io.ReadAll(io.LimitReader(file, maxPersistedFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxPersistedFileBytes {
		return nil, fmt.Errorf("larger than %d bytes", maxPersistedFileBytes)
	}
	var qs []storage.PersistedQuery
	if strings.EqualFold(filepath.Ext(path), ".json") {
		m, err := server.ParsePersistedQueries(data, server.DefaultGraphQLMaxDocumentBytes)
		if err != nil {
			return nil, err
		}
		qs = m.Operations()
	} else {
		body := string(data)
		if strings.TrimSpace(body) == "" {
			return nil, errors.New("empty document")
		}
		qs = []storage.PersistedQuery{{Hash: server.PersistedQueryHash(body), Name: name, Body: body}}
	}
	for i := range qs {
		if err := server.CheckPersistedDocument(qs[i].Body); err != nil {
			return nil, fmt.Errorf("document %q: %v", qs[i].Name, err)
		}
		doc, perr := parser.ParseQuery(&ast.Source{Name: path, Input: qs[i].Body})
		if perr != nil {
			return nil, fmt.Errorf("document %q does not parse: %v", qs[i].Name, perr)
		}
		if len(doc.Operations) == 0 {
			return nil, fmt.Errorf("document %q has no operation", qs[i].Name)
		}
		if qs[i].Name == "" {
			qs[i].Name = doc.Operations[0].Name
		}
		if qs[i].Name == "" {
			qs[i].Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		}
	}
	return qs, nil
}
