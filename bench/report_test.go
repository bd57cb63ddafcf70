package main

import "testing"

// TestJarVersion: Debian's Curator jars have no version in the manifest;
// the versioned copy beside the unversioned name tells it.
func TestJarVersion(t *testing.T) {
	if v := jarVersion("/usr/share/java/curator-recipes.jar"); v == "" || v[0] < '0' || v[0] > '9' {
		t.Fatalf("jarVersion of Debian's curator-recipes.jar = %q, want a version (install libcurator-recipes-java: make deps)", v)
	}
}
