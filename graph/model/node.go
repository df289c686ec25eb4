package model

// Node is an object with a global identity: the GraphQL Node interface
// (graph/nodes.graphqls). Its nodeId is a field resolver, so the marker is
// all a type needs.
type Node interface{ IsNode() }

func (Organization) IsNode()  {}
func (Space) IsNode()         {}
func (Collection) IsNode()    {}
func (User) IsNode()          {}
func (ChangeRequest) IsNode() {}
func (Comment) IsNode()       {}
func (Site) IsNode()          {}
func (Team) IsNode()          {}
