// Package browsertest starts Debian's headless Chromium for the browser
// tests (the playground's, the reader site's) with the options this
// project runs it with: loopback only, no background networking, a fresh
// profile per test.
package browsertest

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Chromium is the browser to run: DOCSAPI_CHROMIUM, /usr/bin/chromium or
// chromium on PATH. Without one the test is skipped, except with CI set,
// where it fails: the browser tests must run in CI (.ci/run installs it).
func Chromium(t testing.TB) string {
	t.Helper()
	for _, p := range []string{os.Getenv("DOCSAPI_CHROMIUM"), "/usr/bin/chromium"} {
		if p != "" {
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	if ci := os.Getenv("CI"); ci != "" && ci != "false" && ci != "0" {
		t.Fatal("chromium is missing and CI is set: the browser tests must run in CI (.ci/run installs it with apt-get install chromium)")
	}
	t.Skip("chromium is not installed (apt-get install chromium): skipping the browser test; with CI=true this fails instead")
	return ""
}

// Options are the allocator options of a headless Chromium with a window of
// width x height: Chromium is skipped or failed for as Chromium says.
func Options(t testing.TB, width, height int) []chromedp.ExecAllocatorOption {
	t.Helper()
	return append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(Chromium(t)),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.UserDataDir(Profile(t)),
		chromedp.WindowSize(width, height),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		// Nothing but loopback resolves, should a page try another host.
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"),
	)
}

// Profile is a fresh Chromium profile folder. Chromium's helper processes
// may still write into it for a moment after the browser is closed, so it
// is removed with a few retries rather than by t.TempDir's cleanup, which
// fails the test when the folder is not empty yet.
func Profile(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "docsapi-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for range 20 {
			if os.RemoveAll(dir) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Logf("left the browser profile %s behind (still in use)", dir)
	})
	return dir
}
