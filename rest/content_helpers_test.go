package rest_test

import (
	"context"

	"docsapi/apierr"
)

// addMember makes an existing user a member of orgID with role.
func (c *contentEnv) addMember(orgID, userID, role string) {
	c.T.Helper()
	if err := c.DB.AddMember(context.Background(), orgID, userID, &role); err != nil {
		c.T.Fatal(err)
	}
}

// apiStatus is the HTTP status an error answers with.
func apiStatus(err error) int { return apierr.Status(err) }
