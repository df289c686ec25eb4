// Command seed fills a docsapi database for benchmarks: it bootstraps an
// organization with an admin and an API token, runs each seeder whose flag
// is above zero, and prints one JSON line with the ids and the token.
//
//	seed --db ./bench.db --members 10000 --teams 50
//	seed --db /tmp/scale.db --spaces 1000000 --collections 100
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"docsapi/bench/seed"
	"docsapi/storage"
)

func main() {
	dbPath := flag.String("db", "./data/bench.db", "docsapi database file (created when missing)")
	title := flag.String("org-title", "Bench Org", "title of the bootstrapped organization")
	collections := flag.Int("collections", 0, "collections the spaces seeder spreads its spaces over (0: one per hundred spaces)")
	counts := make([]*int, len(seed.Seeders))
	for i, s := range seed.Seeders {
		counts[i] = flag.Int(s.Name, 0, s.Help)
	}
	flag.Parse()
	if err := run(*dbPath, *title, *collections, counts); err != nil {
		fmt.Fprintln(os.Stderr, "seed:", err)
		os.Exit(1)
	}
}

func run(dbPath, title string, collections int, counts []*int) error {
	ctx := context.Background()
	db, err := storage.Open(dbPath, storage.Options{})
	if err != nil {
		return err
	}
	defer db.Close()
	e, err := seed.Bootstrap(ctx, db, title)
	if err != nil {
		return err
	}
	e.Collections = collections
	for i, s := range seed.Seeders {
		if *counts[i] <= 0 {
			continue
		}
		if err := s.Run(ctx, e, *counts[i]); err != nil {
			return fmt.Errorf("%s: %w", s.Name, err)
		}
	}
	return json.NewEncoder(os.Stdout).Encode(e.Out)
}
