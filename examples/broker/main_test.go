package main

import (
	"testing"

	"github.com/kaenlog/kaenlog/examples/internal/cmdtest"
)

// The commands the tests build are removed after the last test.
func TestMain(m *testing.M) { cmdtest.Main(m) }
