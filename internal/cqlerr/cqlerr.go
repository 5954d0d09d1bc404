package cqlerr

import (
	"errors"
	"fmt"
)

// Code is a native protocol error code.
type Code int32

// Error codes, from native_protocol_v5.spec section 9.
const (
	ServerError     Code = 0x0000
	ProtocolError   Code = 0x000A
	BadCredentials  Code = 0x0100
	Unavailable     Code = 0x1000
	Overloaded      Code = 0x1001
	IsBootstrapping Code = 0x1002
	TruncateError   Code = 0x1003
	WriteTimeout    Code = 0x1100
	ReadTimeout     Code = 0x1200
	ReadFailure     Code = 0x1300
	FunctionFailure Code = 0x1400
	WriteFailure    Code = 0x1500
	CDCWriteFailure Code = 0x1600
	CASWriteUnknown Code = 0x1700
	SyntaxError     Code = 0x2000
	Unauthorized    Code = 0x2100
	Invalid         Code = 0x2200
	ConfigError     Code = 0x2300
	AlreadyExists   Code = 0x2400
	Unprepared      Code = 0x2500
)

var codeNames = map[Code]string{
	ServerError: "ServerError", ProtocolError: "ProtocolError", BadCredentials: "BadCredentials",
	Unavailable: "Unavailable", Overloaded: "Overloaded", IsBootstrapping: "IsBootstrapping",
	TruncateError: "TruncateError", WriteTimeout: "WriteTimeout", ReadTimeout: "ReadTimeout",
	ReadFailure: "ReadFailure", FunctionFailure: "FunctionFailure", WriteFailure: "WriteFailure",
	CDCWriteFailure: "CDCWriteFailure", CASWriteUnknown: "CASWriteUnknown", SyntaxError: "SyntaxError",
	Unauthorized: "Unauthorized", Invalid: "Invalid", ConfigError: "ConfigError",
	AlreadyExists: "AlreadyExists", Unprepared: "Unprepared",
}

func (c Code) String() string {
	if n, ok := codeNames[c]; ok {
		return n
	}
	return fmt.Sprintf("Code(0x%04x)", int32(c))
}

// Error is a CQL error. The zero values of the payload fields are ignored for
// codes that do not carry them.
type Error struct {
	Code    Code
	Message string

	// AlreadyExists payload: Table is empty when a keyspace already exists.
	Keyspace, Table string
	// Unprepared payload: the unknown statement id.
	ID []byte
	// Unavailable / timeout / failure payloads.
	Consistency uint16
	Required    int32
	Alive       int32
	Received    int32
	BlockFor    int32
	WriteType   string
	DataPresent bool
}

func (e *Error) Error() string { return e.Code.String() + ": " + e.Message }

// New returns an error with the given code and formatted message.
func New(code Code, format string, args ...any) *Error {
	if len(args) == 0 {
		return &Error{Code: code, Message: format}
	}
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Invalidf returns an Invalid (InvalidRequest) error.
func Invalidf(format string, args ...any) *Error { return New(Invalid, format, args...) }

// Syntaxf returns a SyntaxError.
func Syntaxf(format string, args ...any) *Error { return New(SyntaxError, format, args...) }

// Protocolf returns a ProtocolError.
func Protocolf(format string, args ...any) *Error { return New(ProtocolError, format, args...) }

// Serverf returns a ServerError.
func Serverf(format string, args ...any) *Error { return New(ServerError, format, args...) }

// ConfigErrorf returns a ConfigError.
func ConfigErrorf(format string, args ...any) *Error { return New(ConfigError, format, args...) }

// KeyspaceExists returns the AlreadyExists error for a keyspace.
func KeyspaceExists(ks string) *Error {
	return &Error{Code: AlreadyExists, Keyspace: ks,
		Message: fmt.Sprintf("Cannot add existing keyspace \"%s\"", ks)}
}

// TableExists returns the AlreadyExists error for a table.
func TableExists(ks, table string) *Error {
	return &Error{Code: AlreadyExists, Keyspace: ks, Table: table,
		Message: fmt.Sprintf("Cannot add already existing table \"%s\" to keyspace \"%s\"", table, ks)}
}

// NotImplemented is the Invalid error for a statement or feature that cqld
// does not support yet; it always names the feature.
func NotImplemented(feature string) *Error {
	return Invalidf("%s is not supported by cqld yet", feature)
}

// As returns err as a *Error, wrapping anything else in a ServerError.
func As(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: ServerError, Message: err.Error()}
}

// Is reports whether err is a *Error with the given code.
func Is(err error, code Code) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}
