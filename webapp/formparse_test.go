package webapp_test

import (
	"net/url"
	"strings"

	"golang.org/x/net/html"
)

// formValues are what a browser sends of the page's form whose id is id
// (or, id "", its first form that posts): the values of its inputs,
// checked boxes and radios, selected options and text areas.
func (p *page) formValues(id string) url.Values {
	doc, err := html.Parse(strings.NewReader(p.Body))
	if err != nil {
		return nil
	}
	var form *html.Node
	var find func(n *html.Node)
	find = func(n *html.Node) {
		if form != nil {
			return
		}
		if n.Type == html.ElementNode && n.Data == "form" && (attrOf(n, "id") == id || id == "" && attrOf(n, "method") == "post" &&
			!strings.HasSuffix(attrOf(n, "action"), "/signout")) {
			form = n
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			find(c)
		}
	}
	find(doc)
	v := url.Values{}
	if form == nil {
		return v
	}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			name := attrOf(n, "name")
			switch n.Data {
			case "input":
				switch attrOf(n, "type") {
				case "checkbox", "radio":
					if hasAttr(n, "checked") {
						v.Add(name, attrOf(n, "value"))
					}
				case "file", "submit", "button":
				default:
					if name != "" {
						v.Add(name, attrOf(n, "value"))
					}
				}
			case "textarea":
				var b strings.Builder
				for c := n.FirstChild; c != nil; c = c.NextSibling {
					b.WriteString(c.Data)
				}
				v.Add(name, b.String())
			case "select":
				first, chosen := "", ""
				seen := false
				for c := n.FirstChild; c != nil; c = c.NextSibling {
					if c.Type == html.ElementNode && c.Data == "option" {
						if !seen {
							first, seen = attrOf(c, "value"), true
						}
						if hasAttr(c, "selected") {
							chosen = attrOf(c, "value")
						}
					}
				}
				if chosen == "" {
					chosen = first
				}
				v.Add(name, chosen)
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(form)
	return v
}

func attrOf(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Key == key {
			return true
		}
	}
	return false
}
