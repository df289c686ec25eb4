package model

type Team struct {
	Object      string          `json:"object"`
	ID          string          `json:"id"`
	Title       string          `json:"title"`
	Members     int             `json:"members"`
	Spaces      int             `json:"spaces"`
	CreatedAt   string          `json:"createdAt"`
	Permissions TeamPermissions `json:"permissions"`
}

type TeamPermissions struct {
	Admin bool `json:"admin"`
	View  bool `json:"view"`
}

type TeamList List[*Team]

type TeamMembership struct {
	Role TeamMemberRole `json:"role"`
}

type TeamMemberPermissions struct {
	View bool `json:"view"`
}

type TeamMemberEntry struct {
	Organization *Member               `json:"organization"`
	Team         TeamMembership        `json:"team"`
	Permissions  TeamMemberPermissions `json:"permissions"`
}

type TeamMemberList List[*TeamMemberEntry]

type MemberTeamEntry struct {
	Team   *Team          `json:"team"`
	Member TeamMembership `json:"member"`
}

type MemberTeamList List[*MemberTeamEntry]

type CreateTeamInput struct {
	Title   string   `json:"title"`
	Members []string `json:"members,omitempty"`
}

type UpdateTeamInput struct {
	Title string `json:"title"`
}

type TeamMemberRoleInput struct {
	Role TeamMemberRole `json:"role"`
}

// UpdateTeamMembersInput: Memberships maps user id to {"role": "owner"|"member"}.
type UpdateTeamMembersInput struct {
	Add         []string       `json:"add,omitempty"`
	Remove      []string       `json:"remove,omitempty"`
	Memberships map[string]any `json:"memberships,omitempty"`
}
