package main

import (
	"fmt"
	"net"
	"net/http"
	"time"
)

// healthcheck asks the server listening on --addr (DOCSAPI_ADDR, as serve
// reads it) for /healthz and fails unless it answers 200: the container
// image's HEALTHCHECK, which has no shell or curl to do it.
func healthcheck(args []string) error {
	f := newFlags("healthcheck")
	addr := f.String("addr", "127.0.0.1:8080", "address the server listens on")
	if err := f.Parse(args); err != nil {
		return err
	}
	host, port, err := net.SplitHostPort(*addr)
	if err != nil {
		return fmt.Errorf("--addr: %w", err)
	}
	// A server listening on every interface answers on loopback.
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	client := &http.Client{Timeout: 5 * time.Second}
	res, err := client.Get("http://" + net.JoinHostPort(host, port) + "/healthz")
	if err != nil {
		return err
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("/healthz answered %s", res.Status)
	}
	return nil
}
