package main

import (
	"flag"
	"os"
	"strconv"
	"strings"
	"time"
)

// envFlags is a FlagSet whose every flag defaults to its environment twin:
// --public-url reads DOCSAPI_PUBLIC_URL, and so on.
type envFlags struct{ *flag.FlagSet }

func newFlags(name string) envFlags {
	return envFlags{flag.NewFlagSet(name, flag.ContinueOnError)}
}

func envName(flagName string) string {
	return "DOCSAPI_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

func (f envFlags) String(name, def, help string) *string {
	if v, ok := os.LookupEnv(envName(name)); ok {
		def = v
	}
	return f.FlagSet.String(name, def, help+" (env "+envName(name)+")")
}

func (f envFlags) Bool(name string, def bool, help string) *bool {
	if v, ok := os.LookupEnv(envName(name)); ok {
		if b, err := strconv.ParseBool(v); err == nil {
			def = b
		}
	}
	return f.FlagSet.Bool(name, def, help+" (env "+envName(name)+")")
}

func (f envFlags) Int64(name string, def int64, help string) *int64 {
	if v, ok := os.LookupEnv(envName(name)); ok {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			def = n
		}
	}
	return f.FlagSet.Int64(name, def, help+" (env "+envName(name)+")")
}

func (f envFlags) Int(name string, def int, help string) *int {
	if v, ok := os.LookupEnv(envName(name)); ok {
		if n, err := strconv.Atoi(v); err == nil {
			def = n
		}
	}
	return f.FlagSet.Int(name, def, help+" (env "+envName(name)+")")
}

func (f envFlags) Duration(name string, def time.Duration, help string) *time.Duration {
	if v, ok := os.LookupEnv(envName(name)); ok {
		if d, err := time.ParseDuration(v); err == nil {
			def = d
		}
	}
	return f.FlagSet.Duration(name, def, help+" (env "+envName(name)+")")
}

// list splits a comma-separated flag value, dropping empty entries.
func list(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// DB is the --db flag of every command: a SQLite file (the default) or a
// postgres:// URL (storage.Open refuses any other URL).
func (f envFlags) DB() *string {
	return f.String("db", "./data/docsapi.db", "SQLite database file or postgres:// URL")
}
