"""The bottom of the import graph: errors, provenance records, SQL text, canonical names,
package data locations and fault points. Nothing here imports another benchbill module but these."""
