package playground

import "net/http"

// ContentSecurityPolicy of the playground: everything from its own origin
// only, no framing. Inline styles are allowed because GraphiQL's dialogs
// insert a <style> element (react-remove-scroll's scroll lock); scripts
// are never inline. Fonts and the icon are data: URIs inside the
// stylesheet and the page.
const ContentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data:; font-src 'self' data:; connect-src 'self'; object-src 'none'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// setSecurityHeaders gives an HTML page (and the files it loads) its
// content security policy and the headers that go with it.
func setSecurityHeaders(h http.Header) {
	h.Set("Content-Security-Policy", ContentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
}
