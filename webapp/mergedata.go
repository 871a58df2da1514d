package webapp

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"

	"github.com/scopekit/scopekit/mergedata"
)

// The merge data tab: the v1 or v2 tree a SOW template is filled from, as
// an outline whose every node shows its tag path (the spec's merge field
// pages, opened with merge_data view).

type mergeView struct {
	Allowed bool
	Version int
	Nodes   []*mergeNode
}

// mergeNode is one key of the tree: a leaf shows its value; a path is
// what a template names it by ({project.client.name}; inside a loop the
// tag is relative, the path says where it is).
type mergeNode struct {
	Key, Path, Value string
	List             bool // an array: its items are numbered children
	Children         []*mergeNode
}

func (w *Workspace) mergeView(c *call, id string) (*mergeView, error) {
	v := &mergeView{Version: mergedata.Version1}
	if !c.actor.Can("merge_data", false) {
		return v, nil
	}
	v.Allowed = true
	if c.r.URL.Query().Get("version") == "2" {
		v.Version = mergedata.Version2
	}
	snap, err := w.svc.MergeData(c.ctx(), c.actor, id)
	if err != nil {
		return nil, err
	}
	var tree any
	if v.Version == mergedata.Version2 {
		tree = mergedata.BuildV2(snap, w.svc.Now())
	} else {
		tree = mergedata.BuildV1(snap, w.svc.Now())
	}
	b, err := json.Marshal(tree)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var generic map[string]any
	if err := dec.Decode(&generic); err != nil {
		return nil, err
	}
	v.Nodes = outline(generic, "")
	return v, nil
}

// outline turns a decoded object into nodes, keys sorted.
func outline(obj map[string]any, prefix string) []*mergeNode {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]*mergeNode, 0, len(keys))
	for _, k := range keys {
		p := k
		if prefix != "" {
			p = prefix + "." + k
		}
		out = append(out, node(k, p, obj[k]))
	}
	return out
}

func node(key, path string, v any) *mergeNode {
	n := &mergeNode{Key: key, Path: path}
	switch t := v.(type) {
	case map[string]any:
		n.Children = outline(t, path)
	case []any:
		n.List = true
		for i, e := range t {
			n.Children = append(n.Children, node(strconv.Itoa(i), path+"["+strconv.Itoa(i)+"]", e))
		}
	case nil:
		n.Value = "null"
	case string:
		n.Value = strconv.Quote(t)
	default:
		b, _ := json.Marshal(t)
		n.Value = string(b)
	}
	return n
}
