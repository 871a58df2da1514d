package scoping

import "github.com/scopekit/scopekit/engine"

// The engine's vocabulary, under the names the domain and its callers
// have used since before the engine was its own package.
type (
	Record       = engine.Record
	Tx           = engine.Tx
	Store        = engine.Store
	BlobTx       = engine.BlobTx
	SharedReader = engine.SharedReader
	Query        = engine.Query
	Cond         = engine.Cond
	Op           = engine.Op
	SortKey      = engine.SortKey
	SortSpec     = engine.SortSpec
	ListParams   = engine.ListParams
	Result       = engine.Result
	Input        = engine.Input
	RelInput     = engine.RelInput
	Ref          = engine.Ref
	Kind         = engine.Kind
	AttrDef      = engine.AttrDef
	RelDef       = engine.RelDef
	Hooks        = engine.Hooks
	FilterDef    = engine.FilterDef
	TypeDef      = engine.TypeDef
	Schema       = engine.Schema
	Actor        = engine.Actor
	Call         = engine.Call
)

const (
	TimeFormat     = engine.TimeFormat
	MaxStringChars = engine.MaxStringChars
	MaxTextBytes   = engine.MaxTextBytes
	AccessNone     = engine.AccessNone
	AccessView     = engine.AccessView
	AccessManage   = engine.AccessManage

	OpIn       = engine.OpIn
	OpContains = engine.OpContains
	OpGte      = engine.OpGte
	OpLte      = engine.OpLte
	OpNull     = engine.OpNull
	OpNotNull  = engine.OpNotNull

	KindString  = engine.KindString
	KindText    = engine.KindText
	KindEnum    = engine.KindEnum
	KindDecimal = engine.KindDecimal
	KindInt     = engine.KindInt
	KindBool    = engine.KindBool
	KindDate    = engine.KindDate
	KindTime    = engine.KindTime
	KindObject  = engine.KindObject
	KindList    = engine.KindList
	KindAny     = engine.KindAny
)

var (
	NewRecord   = engine.NewRecord
	FormatTime  = engine.FormatTime
	Eq          = engine.Eq
	CompareIDs  = engine.CompareIDs
	AttrPointer = engine.AttrPointer
	RelPointer  = engine.RelPointer
)
