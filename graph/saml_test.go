package graph

import (
	"encoding/pem"
	"strings"
	"testing"
	"time"

	"docsapi/sso"
)

// FuzzCertificatePEM: any certificate text either is refused (a 400 naming
// certificate) or becomes PEM the provider parser reads; never a panic.
func FuzzCertificatePEM(f *testing.F) {
	f.Add("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")
	f.Add("MIIDNTCCAh2gAwIBAgIUIU2hkR3RtswuF7UXr1dlhLA6Fc8w")
	f.Add("  TUlJQg==\n  \n")
	f.Add("not a certificate")
	f.Add("")
	f.Fuzz(func(t *testing.T, text string) {
		out, err := certificatePEM(text)
		if err != nil {
			if !strings.Contains(err.Error(), "certificate") {
				t.Fatalf("error does not name the field: %v", err)
			}
			return
		}
		if trimmed := strings.TrimSpace(text); !strings.HasPrefix(trimmed, "-----BEGIN") {
			if b, rest := pem.Decode([]byte(out)); b == nil || b.Type != "CERTIFICATE" || len(rest) != 0 {
				t.Fatalf("bare base64 %q became %q", text, out)
			}
		}
		sso.ParseCertificates(out, time.Now()) // must not panic
	})
}
