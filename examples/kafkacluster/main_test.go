package main

import (
	"testing"

	"github.com/kaenlog/kaenlog/examples/internal/cmdtest"
)

func TestMain(m *testing.M) { cmdtest.Main(m) }
