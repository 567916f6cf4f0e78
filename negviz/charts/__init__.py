"""Figure builders: DataFrame in, plotly figure out (one font and palette), and file export."""
