package app

var _ = frobnicate
