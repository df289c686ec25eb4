package server

// SetGqlgenWebsocketOnly makes the servers created from now on serve
// graphql-transport-ws with gqlgen's transport (on) or docsapi's (off).
func SetGqlgenWebsocketOnly(on bool) { gqlgenWebsocketOnly = on }
