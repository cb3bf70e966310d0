// Runs the sample model through the C API nnc generated (linked by
// build.rs) and prints the class probabilities.
use std::os::raw::{c_int, c_void};
use std::process::exit;

extern "C" {
    fn sample_infer(input: *const c_void, output: *mut c_void) -> c_int;
    fn sample_input_size() -> c_int;
    fn sample_output_size() -> c_int;
}

fn main() {
    let input: [f32; 4] = [0.5, -1.0, 2.0, 0.25];
    let (nin, nout) = unsafe { (sample_input_size(), sample_output_size()) };
    if nin as usize != input.len() {
        eprintln!("the model wants {} inputs", nin);
        exit(1);
    }
    let mut output = vec![0f32; nout as usize];
    let rc = unsafe {
        sample_infer(input.as_ptr() as *const c_void, output.as_mut_ptr() as *mut c_void)
    };
    if rc != 0 {
        eprintln!("sample_infer failed");
        exit(1);
    }
    print!("output:");
    for v in &output {
        print!(" {:.6}", v);
    }
    println!();
}
