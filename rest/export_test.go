package rest

// RequestFingerprint is requestFingerprint, for tests that record an
// Idempotency-Key as a crashed process would have left it.
var RequestFingerprint = requestFingerprint
