#version 430
// Paints one head's weights or scores straight into the heatmap's texture: each texel looks up
// its cell's value in the colormap; masked cells get the hatch. The rule is the one the plot
// module uses on the CPU for export (texels per cell, stripes of 6 texels, 2 dark), so the
// screen and the exported PNG show the same cells.
layout(local_size_x = 16, local_size_y = 16) in;

layout(rgba8, binding = 0) writeonly uniform image2D cells;
layout(std430, binding = 0) readonly buffer Values { float values[]; };   // rows × cols
layout(std430, binding = 1) readonly buffer Valid { uint key_valid[]; };  // cols
layout(std430, binding = 2) readonly buffer Lut { vec4 lut[]; };          // 256 colours

uniform int rows;
uniform int cols;
uniform int texels_per_cell;
uniform bool causal;
uniform float vmin;
uniform float vmax;
uniform vec4 mask_light;
uniform vec4 mask_dark;

void main() {
  const ivec2 texel = ivec2(gl_GlobalInvocationID.xy);
  if (texel.x >= cols * texels_per_cell || texel.y >= rows * texels_per_cell) return;
  const int i = texel.y / texels_per_cell, j = texel.x / texels_per_cell;
  vec4 colour;
  if ((causal && j > i) || key_valid[j] == 0u) {
    colour = (texel.x + texel.y) % 6 < 2 ? mask_dark : mask_light;
  } else {
    const float span = vmax > vmin ? vmax - vmin : 1.0;
    const float t = clamp((values[i * cols + j] - vmin) / span, 0.0, 1.0);
    colour = lut[int(round(t * 255.0))];
  }
  // Texture row 0 is the heatmap's top row, as in the CPU image.
  imageStore(cells, texel, colour);
}
