package cql

// keyword identifies a CQL keyword. Keywords are lexed as tkIdent tokens with
// kw set, so that the parser can decide per context whether a keyword is
// usable as an identifier (Cassandra's unreserved keywords) or not.
type keyword uint8

const (
	kwNone keyword = iota
	kwAccess
	kwAdd
	kwAggregate
	kwAggregates
	kwAll
	kwAllow
	kwAlter
	kwAnd
	kwAnn
	kwApply
	kwAs
	kwAsc
	kwAscii
	kwAuthorize
	kwBatch
	kwBegin
	kwBigint
	kwBlob
	kwBoolean
	kwBy
	kwCalled
	kwCast
	kwCidrs
	kwCluster
	kwClustering
	kwColumnfamily // COLUMNFAMILY or TABLE
	kwCompact
	kwContains
	kwCount
	kwCounter
	kwCreate
	kwCustom
	kwDatacenters
	kwDate
	kwDecimal
	kwDefault
	kwDelete
	kwDesc
	kwDescribe
	kwDistinct
	kwDouble
	kwDrop
	kwDuration
	kwEntries
	kwExecute
	kwExists
	kwFiltering
	kwFinalfunc
	kwFloat
	kwFrom
	kwFrozen
	kwFull
	kwFunction
	kwFunctions
	kwGrant
	kwGroup
	kwHashed
	kwIdentity
	kwIf
	kwIn
	kwIndex
	kwInet
	kwInitcond
	kwInput
	kwInsert
	kwInt
	kwInternals
	kwInto
	kwIs
	kwJSON
	kwKey
	kwKeys
	kwKeyspace
	kwKeyspaces
	kwLanguage
	kwLike
	kwLimit
	kwList
	kwLogin
	kwMap
	kwMasked
	kwMaterialized
	kwMaxwritetime
	kwMbean
	kwMbeans
	kwModify
	kwNologin
	kwNorecursive
	kwNosuperuser
	kwNot
	kwNull
	kwOf
	kwOn
	kwOnly
	kwOptions
	kwOr
	kwOrder
	kwPartition
	kwPassword
	kwPer
	kwPermission
	kwPermissions
	kwPrimary
	kwRename
	kwReplace
	kwReturns
	kwRevoke
	kwRole
	kwRoles
	kwSchema
	kwSelect
	kwSelectMasked
	kwSet
	kwSfunc
	kwSmallint
	kwStatic
	kwStorage
	kwStype
	kwSuperuser
	kwTables // TABLES or COLUMNFAMILIES
	kwText
	kwTime
	kwTimestamp
	kwTimeuuid
	kwTinyint
	kwTo
	kwToken
	kwTrigger
	kwTruncate
	kwTTL
	kwTuple
	kwType
	kwTypes
	kwUnlogged
	kwUnmask
	kwUnset
	kwUpdate
	kwUse
	kwUser
	kwUsers
	kwUsing
	kwUUID
	kwValues
	kwVarchar
	kwVarint
	kwVector
	kwView
	kwWhere
	kwWith
	kwWritetime
	numKeywords
)

// Keyword classes, following Parser.g:
//
//	basic_unreserved_keyword     kwBasic
//	native_type                  kwNative
//	unreserved_function_keyword  kwBasic | kwNative
//	unreserved_keyword           kwBasic | kwNative | kwUnreserved
//
// A keyword without any class is reserved: it can only be used as an
// identifier when double-quoted.
const (
	kwBasic      uint8 = 1 << iota // basic_unreserved_keyword
	kwNative                       // native_type
	kwUnreserved                   // the extra members of unreserved_keyword
)

type keywordInfo struct {
	name  string // ANTLR token name without the K_ prefix, used in messages
	class uint8
}

var keywordInfos = [numKeywords]keywordInfo{
	kwAccess:       {"ACCESS", kwBasic},
	kwAdd:          {"ADD", 0},
	kwAggregate:    {"AGGREGATE", kwBasic},
	kwAggregates:   {"AGGREGATES", kwBasic},
	kwAll:          {"ALL", kwBasic},
	kwAllow:        {"ALLOW", 0},
	kwAlter:        {"ALTER", 0},
	kwAnd:          {"AND", 0},
	kwAnn:          {"ANN", kwBasic},
	kwApply:        {"APPLY", 0},
	kwAs:           {"AS", kwBasic},
	kwAsc:          {"ASC", 0},
	kwAscii:        {"ASCII", kwNative},
	kwAuthorize:    {"AUTHORIZE", 0},
	kwBatch:        {"BATCH", 0},
	kwBegin:        {"BEGIN", 0},
	kwBigint:       {"BIGINT", kwNative},
	kwBlob:         {"BLOB", kwNative},
	kwBoolean:      {"BOOLEAN", kwNative},
	kwBy:           {"BY", 0},
	kwCalled:       {"CALLED", kwBasic},
	kwCast:         {"CAST", kwUnreserved},
	kwCidrs:        {"CIDRS", kwBasic},
	kwCluster:      {"CLUSTER", kwBasic},
	kwClustering:   {"CLUSTERING", kwBasic},
	kwColumnfamily: {"COLUMNFAMILY", 0},
	kwCompact:      {"COMPACT", kwBasic},
	kwContains:     {"CONTAINS", kwBasic},
	kwCount:        {"COUNT", kwUnreserved},
	kwCounter:      {"COUNTER", kwNative},
	kwCreate:       {"CREATE", 0},
	kwCustom:       {"CUSTOM", kwBasic},
	kwDatacenters:  {"DATACENTERS", kwBasic},
	kwDate:         {"DATE", kwNative},
	kwDecimal:      {"DECIMAL", kwNative},
	kwDefault:      {"DEFAULT", kwBasic},
	kwDelete:       {"DELETE", 0},
	kwDesc:         {"DESC", 0},
	kwDescribe:     {"DESCRIBE", 0},
	kwDistinct:     {"DISTINCT", kwUnreserved},
	kwDouble:       {"DOUBLE", kwNative},
	kwDrop:         {"DROP", 0},
	kwDuration:     {"DURATION", kwNative},
	kwEntries:      {"ENTRIES", 0},
	kwExecute:      {"EXECUTE", 0},
	kwExists:       {"EXISTS", kwBasic},
	kwFiltering:    {"FILTERING", kwBasic},
	kwFinalfunc:    {"FINALFUNC", kwBasic},
	kwFloat:        {"FLOAT", kwNative},
	kwFrom:         {"FROM", 0},
	kwFrozen:       {"FROZEN", kwBasic},
	kwFull:         {"FULL", 0},
	kwFunction:     {"FUNCTION", kwBasic},
	kwFunctions:    {"FUNCTIONS", kwBasic},
	kwGrant:        {"GRANT", 0},
	kwGroup:        {"GROUP", kwBasic},
	kwHashed:       {"HASHED", kwBasic},
	kwIdentity:     {"IDENTITY", kwBasic},
	kwIf:           {"IF", 0},
	kwIn:           {"IN", 0},
	kwIndex:        {"INDEX", 0},
	kwInet:         {"INET", kwNative},
	kwInitcond:     {"INITCOND", kwBasic},
	kwInput:        {"INPUT", kwBasic},
	kwInsert:       {"INSERT", 0},
	kwInt:          {"INT", kwNative},
	kwInternals:    {"INTERNALS", kwBasic},
	kwInto:         {"INTO", 0},
	kwIs:           {"IS", 0},
	kwJSON:         {"JSON", kwUnreserved},
	kwKey:          {"KEY", kwUnreserved},
	kwKeys:         {"KEYS", kwBasic},
	kwKeyspace:     {"KEYSPACE", 0},
	kwKeyspaces:    {"KEYSPACES", kwBasic},
	kwLanguage:     {"LANGUAGE", kwBasic},
	kwLike:         {"LIKE", kwBasic},
	kwLimit:        {"LIMIT", 0},
	kwList:         {"LIST", kwBasic},
	kwLogin:        {"LOGIN", kwBasic},
	kwMap:          {"MAP", kwBasic},
	kwMasked:       {"MASKED", kwBasic},
	kwMaterialized: {"MATERIALIZED", 0},
	kwMaxwritetime: {"MAXWRITETIME", kwUnreserved},
	kwMbean:        {"MBEAN", kwBasic},
	kwMbeans:       {"MBEANS", kwBasic},
	kwModify:       {"MODIFY", 0},
	kwNologin:      {"NOLOGIN", kwBasic},
	kwNorecursive:  {"NORECURSIVE", 0},
	kwNosuperuser:  {"NOSUPERUSER", kwBasic},
	kwNot:          {"NOT", 0},
	kwNull:         {"NULL", 0},
	kwOf:           {"OF", 0},
	kwOn:           {"ON", 0},
	kwOnly:         {"ONLY", kwBasic},
	kwOptions:      {"OPTIONS", kwBasic},
	kwOr:           {"OR", 0},
	kwOrder:        {"ORDER", 0},
	kwPartition:    {"PARTITION", kwBasic},
	kwPassword:     {"PASSWORD", kwBasic},
	kwPer:          {"PER", kwBasic},
	kwPermission:   {"PERMISSION", kwBasic},
	kwPermissions:  {"PERMISSIONS", kwBasic},
	kwPrimary:      {"PRIMARY", 0},
	kwRename:       {"RENAME", 0},
	kwReplace:      {"REPLACE", kwBasic},
	kwReturns:      {"RETURNS", kwBasic},
	kwRevoke:       {"REVOKE", 0},
	kwRole:         {"ROLE", kwBasic},
	kwRoles:        {"ROLES", kwBasic},
	kwSchema:       {"SCHEMA", 0},
	kwSelect:       {"SELECT", 0},
	kwSelectMasked: {"SELECT_MASKED", kwBasic},
	kwSet:          {"SET", 0},
	kwSfunc:        {"SFUNC", kwBasic},
	kwSmallint:     {"SMALLINT", kwNative},
	kwStatic:       {"STATIC", kwBasic},
	kwStorage:      {"STORAGE", kwBasic},
	kwStype:        {"STYPE", kwBasic},
	kwSuperuser:    {"SUPERUSER", kwBasic},
	kwTables:       {"TABLES", kwBasic},
	kwText:         {"TEXT", kwNative},
	kwTime:         {"TIME", kwNative},
	kwTimestamp:    {"TIMESTAMP", kwNative},
	kwTimeuuid:     {"TIMEUUID", kwNative},
	kwTinyint:      {"TINYINT", kwNative},
	kwTo:           {"TO", 0},
	kwToken:        {"TOKEN", 0},
	kwTrigger:      {"TRIGGER", kwBasic},
	kwTruncate:     {"TRUNCATE", 0},
	kwTTL:          {"TTL", kwUnreserved},
	kwTuple:        {"TUPLE", kwBasic},
	kwType:         {"TYPE", kwBasic},
	kwTypes:        {"TYPES", kwBasic},
	kwUnlogged:     {"UNLOGGED", 0},
	kwUnmask:       {"UNMASK", kwBasic},
	kwUnset:        {"UNSET", kwBasic},
	kwUpdate:       {"UPDATE", 0},
	kwUse:          {"USE", 0},
	kwUser:         {"USER", kwBasic},
	kwUsers:        {"USERS", kwBasic},
	kwUsing:        {"USING", 0},
	kwUUID:         {"UUID", kwNative},
	kwValues:       {"VALUES", kwBasic},
	kwVarchar:      {"VARCHAR", kwNative},
	kwVarint:       {"VARINT", kwNative},
	kwVector:       {"VECTOR", kwBasic},
	kwView:         {"VIEW", 0},
	kwWhere:        {"WHERE", 0},
	kwWith:         {"WITH", 0},
	kwWritetime:    {"WRITETIME", kwUnreserved},
}

// keywords maps the lower-case spelling of every keyword to its id. TABLE is
// an alias of COLUMNFAMILY and COLUMNFAMILIES of TABLES, as in Lexer.g.
var keywords = func() map[string]keyword {
	m := make(map[string]keyword, numKeywords+2)
	for k := keyword(1); k < numKeywords; k++ {
		name := keywordInfos[k].name
		if name == "" {
			panic("cql: keyword without info")
		}
		m[asciiLower(name)] = k
	}
	m["table"] = kwColumnfamily
	m["columnfamilies"] = kwTables
	return m
}()

// maxKeywordLen is the length of the longest keyword spelling.
const maxKeywordLen = 16

// keywordLower is the lower-case spelling of each keyword, used as the
// text of keyword tokens.
var keywordLower = func() [numKeywords]string {
	var names [numKeywords]string
	for k := keyword(1); k < numKeywords; k++ {
		names[k] = asciiLower(keywordInfos[k].name)
		if len(names[k]) > maxKeywordLen {
			panic("cql: maxKeywordLen too small")
		}
	}
	return names
}()

func (k keyword) String() string { return "K_" + keywordInfos[k].name }

// isBasicUnreserved reports whether k is in basic_unreserved_keyword.
func (k keyword) isBasicUnreserved() bool { return keywordInfos[k].class&kwBasic != 0 }

// isNativeType reports whether k names a native type.
func (k keyword) isNativeType() bool { return keywordInfos[k].class&kwNative != 0 }

// isUnreserved reports whether k is in unreserved_keyword, i.e. may be used
// as an unquoted column, table or keyspace name.
func (k keyword) isUnreserved() bool { return keywordInfos[k].class != 0 }

// isFunctionKeyword reports whether k is in unreserved_function_keyword,
// i.e. may be used as an unquoted function name.
func (k keyword) isFunctionKeyword() bool {
	return keywordInfos[k].class&(kwBasic|kwNative) != 0
}

// isReserved reports whether s (any case) is a keyword that cannot be used
// as an unquoted identifier.
func isReserved(s string) bool {
	k, ok := keywords[asciiLower(s)]
	return ok && !k.isUnreserved()
}

// asciiLower lower-cases ASCII letters; it returns s itself when s has no
// upper-case letter, so the common case does not allocate.
func asciiLower(s string) string {
	i := 0
	for ; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			break
		}
	}
	if i == len(s) {
		return s
	}
	b := []byte(s)
	for ; i < len(b); i++ {
		if c := b[i]; 'A' <= c && c <= 'Z' {
			b[i] = c + ('a' - 'A')
		}
	}
	return string(b)
}
