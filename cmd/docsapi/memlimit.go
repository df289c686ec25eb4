package main

import (
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// applyMemoryLimit sets Go's soft memory limit (GOMEMLIMIT) from the
// --memory-limit flag and returns the limit in force and where it came
// from. With GOGC at 400 (--gc-percent) the heap may grow to five times its
// live data between collections; the soft limit makes the collector work
// harder as the heap nears it and the scavenger hand freed memory back to
// the system down to it, so a spike (a large import, a hostile request)
// does not leave the process holding gigabytes.
//
// Without it a spike stays resident: 40 parallel 9 MiB bodies took a
// process to 2.1 GB that it still held 40 s later (no allocation, so no
// collection lowers the heap goal); with 1 GiB it peaked and stayed at
// 1.08 GB, with 256 MiB at 282 MB.
//
// value is "auto" (or empty): 1 GiB, or half of the memory the process may
// use (the cgroup limit in a container, else the machine's memory) when
// that is less. A process's steady heap is tens of MB (caches are bounded),
// so 1 GiB leaves room for legitimate spikes (imports, large pages) and a
// half of a small container leaves the rest to what the Go heap does not
// count (SQLite's page cache, stacks) before the OOM killer. "off" or "0":
// no limit; else a size in bytes with an optional unit (B, KiB, MiB, GiB,
// TiB, or KB, MB, GB, TB), e.g. "2GiB".
// The GOMEMLIMIT environment variable, when set, wins (like GOGC).
func applyMemoryLimit(value string) (limit int64, source string, err error) {
	if _, set := os.LookupEnv("GOMEMLIMIT"); set {
		return debug.SetMemoryLimit(-1), "GOMEMLIMIT", nil
	}
	switch v := strings.TrimSpace(value); v {
	case "", "auto":
		total := availableMemory()
		if total <= 0 {
			total = 2 * autoMemoryLimit // unknown: the fixed part alone
		}
		limit, source = min(autoMemoryLimit, total/2), "auto: 1GiB or half of "+formatBytes(total)
	case "off", "0":
		limit, source = math.MaxInt64, "off"
	default:
		limit, err = parseBytes(v)
		if err != nil {
			return 0, "", fmt.Errorf("--memory-limit: %w", err)
		}
		source = "--memory-limit"
	}
	debug.SetMemoryLimit(limit)
	return debug.SetMemoryLimit(-1), source, nil
}

// availableMemory is the cgroup's memory limit (v2, then v1) when one is
// set, else the machine's memory (MemTotal); 0 when neither can be read.
func availableMemory() int64 {
	total := int64(0)
	if raw, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(raw), "\n") {
			if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
				kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
				total = kb << 10
			}
		}
	}
	for _, path := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		raw, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		// "max" (v2) or a huge number (v1) means no limit.
		if n, err := strconv.ParseInt(strings.TrimSpace(string(raw)), 10, 64); err == nil && n > 0 && (total == 0 || n < total) {
			return n
		}
	}
	return total
}

// autoMemoryLimit is the soft memory limit of --memory-limit auto on a
// machine or container with at least twice as much memory.
const autoMemoryLimit = 1 << 30

var byteUnits = []struct {
	suffix string
	size   int64
}{
	{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10},
	{"TB", 1e12}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"B", 1},
}

// parseBytes reads a size such as 1GiB, 512MiB, 800MB or 1073741824.
func parseBytes(v string) (int64, error) {
	num, unit := v, int64(1)
	for _, u := range byteUnits {
		if n, ok := strings.CutSuffix(v, u.suffix); ok {
			num, unit = strings.TrimSpace(n), u.size
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > math.MaxInt64/unit {
		return 0, fmt.Errorf("%q is not a size (e.g. 1GiB, 512MiB, auto, off)", v)
	}
	return n * unit, nil
}

func formatBytes(n int64) string {
	if n == math.MaxInt64 {
		return "none"
	}
	return strconv.FormatInt(n>>20, 10) + "MiB"
}
