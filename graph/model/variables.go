package model

// SpaceVariablesChange is the answer of setSpaceVariables.
type SpaceVariablesChange struct {
	Revision  string         `json:"revision"`
	Variables map[string]any `json:"variables"`
}
