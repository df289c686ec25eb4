package site_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"docsapi/internal/browsertest"
)

// TestLighthouse audits the sample site's every-block page with Lighthouse
// (npm, site/lighthouse, installed by `make test`: npm ci there) driving
// Debian's Chromium, mobile and desktop, and wants >= 95 in each category.
// It runs wherever Chromium, Node and those packages are present; without
// one it is skipped, except with CI set, where it fails (as the other
// browser tests). DOCSAPI_LIGHTHOUSE=off skips it on purpose (the
// PostgreSQL run of make test: the page is the same HTML on both engines).
func TestLighthouse(t *testing.T) {
	if os.Getenv("DOCSAPI_LIGHTHOUSE") == "off" {
		t.Skip("DOCSAPI_LIGHTHOUSE=off")
	}
	bin := browsertest.Chromium(t)
	lh, _ := filepath.Abs("lighthouse/node_modules/.bin/lighthouse")
	_, errLH := os.Stat(lh)
	_, errNode := exec.LookPath("node")
	if err := errors.Join(errLH, errNode); err != nil {
		missing := fmt.Sprintf("Lighthouse needs Node and site/lighthouse's packages (make lighthouse-deps: npm ci in site/lighthouse): %v", err)
		if ci := os.Getenv("CI"); ci != "" && ci != "false" && ci != "0" {
			t.Fatal(missing + "; CI is set, so this fails instead of skipping")
		}
		t.Skip(missing)
	}
	f := newReaderFixture(t, "public")
	for _, preset := range []string{"mobile", "desktop"} {
		out := filepath.Join(t.TempDir(), "report.json")
		args := []string{f.base + "/overview", "--output=json", "--output-path=" + out, "--quiet",
			"--only-categories=performance,accessibility,best-practices,seo",
			"--chrome-flags=--headless=new --no-sandbox --disable-gpu --user-data-dir=" + browsertest.Profile(t)}
		if preset == "desktop" {
			args = append(args, "--preset=desktop")
		}
		cmd := exec.Command(lh, args...)
		cmd.Env = append(os.Environ(), "CHROME_PATH="+bin)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("lighthouse %s: %v\n%s", preset, err, b)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var report struct {
			Categories map[string]struct {
				Score     float64
				AuditRefs []struct{ ID string }
			}
			Audits map[string]struct {
				Title string
				Score *float64
			}
		}
		if err := json.Unmarshal(b, &report); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"performance", "accessibility", "best-practices", "seo"} {
			if _, ok := report.Categories[name]; !ok {
				t.Errorf("%s: the report has no %s score", preset, name)
			}
		}
		for name, c := range report.Categories {
			score := int(c.Score*100 + 0.5)
			t.Logf("%s %s: %d", preset, name, score)
			if score < 95 {
				t.Errorf("%s %s: %d, want >= 95", preset, name, score)
			}
			for _, ref := range c.AuditRefs {
				if a := report.Audits[ref.ID]; a.Score != nil && *a.Score < 0.9 {
					t.Logf("  %s: %s (%.2f)", ref.ID, a.Title, *a.Score)
				}
			}
		}
	}
}
