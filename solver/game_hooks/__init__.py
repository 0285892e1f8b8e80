"""Each game's adapter hooks, one module per engine (solver/games/__init__.py names them
and says what each hook is). The registry reads them by name on first use; here, at the
top of solver/'s layers (docs/design.md "Layers of solver/"), a hook may import any
package."""
