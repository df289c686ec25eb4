package model

// APIToken is a personal API token (POST/GET /v1/user/tokens). Token, the
// secret, is set only in the answer that creates it; lists leave the key out.
type APIToken struct {
	Object     string  `json:"object"`
	ID         string  `json:"id"`
	Label      string  `json:"label"`
	CreatedAt  string  `json:"createdAt"`
	ExpiresAt  *string `json:"expiresAt"`
	LastUsedAt *string `json:"lastUsedAt"`
	ReadOnly   bool    `json:"readOnly"`
	Token      *string `json:"token,omitempty"`
}

type APITokenList List[*APIToken]

type CreateAPITokenInput struct {
	Label     string  `json:"label"`
	ExpiresAt *string `json:"expiresAt,omitempty"`
	ReadOnly  *bool   `json:"readOnly,omitempty"`
}
