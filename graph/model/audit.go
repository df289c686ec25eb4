package model

// AuditEntry is one entry of an organization's audit log (graph/audit.go).
type AuditEntry struct {
	Object    string         `json:"object"`
	ID        string         `json:"id"`
	Action    string         `json:"action"`
	Target    AuditTarget    `json:"target"`
	Actor     AuditActor     `json:"actor"`
	CreatedAt string         `json:"createdAt"`
	Fields    map[string]any `json:"fields"`
}

type AuditTarget struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

type AuditActor struct {
	User      *string `json:"user"`
	Token     *string `json:"token"`
	Address   *string `json:"address"`
	RequestID *string `json:"requestId"`
}

type AuditEntryList List[*AuditEntry]
