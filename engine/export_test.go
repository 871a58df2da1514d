package engine

// BadText exposes badText to the external tests.
var BadText = badText
