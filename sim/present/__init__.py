"""What users see: charts (PNG and SVG), the HTML report, text for the terminal."""
