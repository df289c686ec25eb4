package rest_test

import "context"

// addMember makes an existing user a member of orgID with role.
func (c *contentEnv) addMember(orgID, userID, role string) {
	c.T.Helper()
	if err := c.DB.AddMember(context.Background(), orgID, userID, &role); err != nil {
		c.T.Fatal(err)
	}
}
