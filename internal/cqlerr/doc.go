// Package cqlerr defines the one error type that every client-visible failure
// carries: a CQL error code from the native protocol specification (section
// 9, "Error codes") plus the code-specific payload (Unavailable, WriteTimeout,
// AlreadyExists, Unprepared, ...).
//
// Errors are created where the failure happens, with the code decided at that
// point, and are encoded to the wire exactly once, in internal/transport. Any
// error that is not a *Error reaching the transport is a bug and is reported as
// a ServerError.
package cqlerr
